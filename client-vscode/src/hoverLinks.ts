// The server's hover lists house rules with `command:` links (Forget, Pin/Unpin) that call its
// own commands (`comodor.forgetRule`, `comodor.setRule`). Clicking those directly would forget
// a rule without asking and leave the views stale (setRule sends no notification), and VS Code
// only renders command links it is told to trust. So hover Markdown is rewritten to point the
// links at the extension's wrappers, and only those wrappers are trusted. Pure: unit-tested.

/** Server command → the extension command that confirms, calls it and refreshes the views. */
export const HOVER_COMMANDS: Readonly<Record<string, string>> = {
  'comodor.forgetRule': 'comodor.ui.forgetRuleById',
  'comodor.setRule': 'comodor.ui.setRuleById',
};

/** What `MarkdownString.isTrusted` gets: only our wrappers may run from a hover link. */
export const TRUSTED_HOVER_COMMANDS: readonly string[] = Object.values(HOVER_COMMANDS);

/** Rewrite `command:<server id>` link targets to the wrappers; anything else is left alone. */
export function rewriteHoverLinks(markdown: string): string {
  return markdown.replace(/\]\(command:([A-Za-z0-9_.]+)(?=[?)])/g, (whole, id: string) => {
    const ui = HOVER_COMMANDS[id];
    return ui ? `](command:${ui}` : whole;
  });
}

/** The single `{id, …}` argument a hover link passes, or undefined when it is malformed. */
export function ruleIdArgument(arg: unknown): { id: number; pinned?: boolean; active?: boolean } | undefined {
  const o = arg as { id?: unknown; pinned?: unknown; active?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.id !== 'number' || !Number.isInteger(o.id)) {
    return undefined;
  }
  const out: { id: number; pinned?: boolean; active?: boolean } = { id: o.id };
  if (typeof o.pinned === 'boolean') {
    out.pinned = o.pinned;
  }
  if (typeof o.active === 'boolean') {
    out.active = o.active;
  }
  return out;
}
