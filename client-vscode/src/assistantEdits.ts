// Sends `comodor/assistantEdit` for the editor changes attribution.ts calls an assistant's.
// Wiring only: this module copies what VS Code says about each change (and about the
// keyboard, saves, tabs, focus, Comodor's offered fixes) into plain facts; every decision is
// attribution.ts's.
//
// VS Code's own edit source, `event.detailedReason`, exists only with the
// `textDocumentChangeReason` API proposal enabled. The manifest does not declare
// `enabledApiProposals`: a stable VS Code (and code-server) logs "CANNOT USE these API
// proposals" on every start for an extension that declares one it was not granted, a build
// that does not know the proposal logs that it "DOES NOT EXIST", and `vsce publish` refuses the
// package. So the property is read defensively: it is there in a development host run with
// the proposal (or once the API is final), and everywhere else the stable signals decide.
//
// Ghost text accepted with Tab (an inline completion) is, without the proposal, an edit at the
// cursor moments after a keystroke: typing, by every stable signal. So the manifest binds Tab,
// with exactly VS Code's own `when` for `editor.action.inlineSuggest.commit` (narrowed, never
// widened: where ours does not apply, VS Code's own binding still does), to
// `comodor.ui.acceptInlineSuggestion`, which marks the active document and runs VS Code's own
// command. The change that command makes reaches us before the command returns; the mark is
// gone after that, so it can only ever name that one change. A keystroke the user makes while
// the command is on its way (Tab, then Enter at once) can be that change, so it counts only if
// VS Code then moved the cursor, not by keyboard, to the end of its text: the accept's own
// `setSelections` (seen in e2e: without this an Enter racing Tab was the marked version).
import * as vscode from 'vscode';
import {
  AssistantEditParams,
  ChangeFacts,
  Hunk,
  InlineAcceptFacts,
  OfferedEdit,
  Position,
  Range,
  burstFacts,
  classifyChange,
  insertedOffsets,
  insertsClipboard,
  matchesOffered,
  toRanges,
} from './attribution';

/** Changes that arrive within this many ms are one burst (one bulk edit reaches us as several). */
const BURST_MS = 80;
/** Edits this soon after onWillSaveTextDocument are format on save or code actions on save. */
const FORMAT_MS = 2000;
/** Comodor's offered fixes are remembered this long (the lightbulb may be opened later). */
const OFFER_TTL_MS = 10 * 60_000;
const OFFERS_PER_DOCUMENT = 30;
/** Documents the language client syncs (languageServer.ts documentSelector). */
const SCHEMES = new Set(['file', 'untitled']);

interface Seen {
  uri: string;
  version: number;
  at: number;
  ranges: Range[];
  /** The live document: whether it is dirty is only known once the burst is decided. */
  doc: vscode.TextDocument;
  facts: Omit<ChangeFacts, 'burst' | 'pasted' | 'keyboard' | 'dirty' | 'inlineAccept'>;
  /** Set when this change came while the Tab command ran (see `acceptInline`). */
  accept?: Omit<InlineAcceptFacts, 'typedSince' | 'cursorMovedByAccept'> & { at: number; typedAt?: number; movedAt?: number };
}

/** The command the manifest binds Tab to while ghost text is shown. */
export const ACCEPT_INLINE_COMMAND = 'comodor.ui.acceptInlineSuggestion';
/** A Keyboard selection change this soon after a change is that change's own (typing). */
const TYPED_WITHIN_MS = 50;
/** VS Code's own accept, which the command runs. */
const VSCODE_ACCEPT_INLINE = 'editor.action.inlineSuggest.commit';

interface AcceptMark {
  uri: string;
  version: number;
  cursor: Position;
  at: number;
}

interface Offer {
  at: number;
  edits: OfferedEdit[];
}

function plainRange(r: vscode.Range): Range {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

function detailedReasonOf(e: vscode.TextDocumentChangeEvent): unknown {
  try {
    return (e as { readonly detailedReason?: unknown }).detailedReason;
  } catch {
    return undefined;
  }
}

function inTab(uri: string): boolean {
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText && input.uri.toString() === uri) {
        return true;
      }
      if (input instanceof vscode.TabInputTextDiff && (input.modified.toString() === uri || input.original.toString() === uri)) {
        return true;
      }
    }
  }
  return false;
}

export class AssistantEdits implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];
  private pending: Seen[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly keyboard = new Map<string, { at: number; selections: Range[] }>();
  private readonly formattingUntil = new Map<string, number>();
  /** When a save of each document last started (or finished). */
  private readonly savedAt = new Map<string, number>();
  private readonly offers = new Map<string, Offer[]>();
  /** When each document stopped being shown; documents never seen count from activation. */
  private readonly hiddenSince = new Map<string, number>();
  private shown = new Set<string>();
  private readonly startedAt = Date.now();
  private focused = vscode.window.state.focused;
  private focusChangedAt = Date.now();
  /** Set only while the Tab command runs VS Code's accept; see the header. */
  private accepting: AcceptMark | undefined;

  /**
   * @param send delivers one notification (dropped when the server is not running)
   * @param log one line for the output channel, for each edit attributed to an assistant
   */
  constructor(
    private readonly send: (params: AssistantEditParams) => void,
    private readonly log: (line: string) => void,
  ) {
    this.shown = this.visibleUris();
    this.subscriptions = [
      vscode.commands.registerCommand(ACCEPT_INLINE_COMMAND, (...args: unknown[]) => this.acceptInline(args)),
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e)),
      vscode.window.onDidChangeWindowState((state) => {
        if (state.focused !== this.focused) {
          this.focused = state.focused;
          this.focusChangedAt = Date.now();
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => {
        const now = Date.now();
        const shown = this.visibleUris();
        for (const uri of this.shown) {
          if (!shown.has(uri)) {
            this.hiddenSince.set(uri, now);
          }
        }
        this.shown = shown;
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.kind === undefined) {
          this.movedNotByKeyboard(e);
        }
        if (e.kind === vscode.TextEditorSelectionChangeKind.Keyboard) {
          const uri = e.textEditor.document.uri.toString();
          const now = Date.now();
          this.keyboard.set(uri, { at: now, selections: e.selections.map(plainRange) });
          // The user typed while Tab's accept ran: the next change may be theirs.
          if (this.accepting?.uri === uri) {
            this.accepting = undefined;
          }
          for (const seen of this.pending) {
            if (seen.uri === uri && seen.accept && seen.accept.typedAt === undefined) {
              seen.accept.typedAt = now;
            }
          }
        }
      }),
      vscode.workspace.onWillSaveTextDocument((e) => {
        this.formattingUntil.set(e.document.uri.toString(), Date.now() + FORMAT_MS);
        this.savedAt.set(e.document.uri.toString(), Date.now());
      }),
      vscode.workspace.onDidSaveTextDocument((d) => {
        // The participants ran before the save; a little slack for their last change to arrive.
        this.formattingUntil.set(d.uri.toString(), Date.now() + 250);
        this.savedAt.set(d.uri.toString(), Date.now());
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        const uri = d.uri.toString();
        this.keyboard.delete(uri);
        this.formattingUntil.delete(uri);
        this.savedAt.delete(uri);
        this.offers.delete(uri);
        this.hiddenSince.delete(uri);
      }),
    ];
  }

  /** A workspace edit one of Comodor's code actions carries: applying it is Comodor's own fix. */
  offered(edit: vscode.WorkspaceEdit): void {
    const now = Date.now();
    for (const [uri, edits] of edit.entries()) {
      const key = uri.toString();
      const list = (this.offers.get(key) ?? []).filter((o) => now - o.at < OFFER_TTL_MS);
      list.push({ at: now, edits: edits.map((t) => ({ range: plainRange(t.range), newText: t.newText })) });
      this.offers.set(key, list.slice(-OFFERS_PER_DOCUMENT));
    }
  }

  /**
   * Tab while ghost text is shown: mark the active document, then run VS Code's own accept, so
   * the key does exactly what it always does. Whatever happens, the mark is dropped when the
   * accept returns (its edit has reached `changed` by then) or when a change consumes it.
   */
  private async acceptInline(args: unknown[]): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const sel = editor?.selections;
    const p = sel?.length === 1 && sel[0].isEmpty ? sel[0].active : undefined;
    const mark: AcceptMark | undefined =
      editor && p && SCHEMES.has(editor.document.uri.scheme)
        ? { uri: editor.document.uri.toString(), version: editor.document.version, cursor: { line: p.line, character: p.character }, at: Date.now() }
        : undefined;
    this.accepting = mark;
    try {
      await vscode.commands.executeCommand(VSCODE_ACCEPT_INLINE, ...args);
    } finally {
      if (this.accepting === mark) {
        this.accepting = undefined;
      }
    }
  }

  /**
   * A cursor move no keystroke, mouse or command made (VS Code's accept sets the selection
   * with its own source): if it puts the one cursor where a Tab-marked change's text ends,
   * that change was the accept.
   */
  private movedNotByKeyboard(e: vscode.TextEditorSelectionChangeEvent): void {
    const uri = e.textEditor.document.uri.toString();
    const sel = e.selections;
    if (sel.length !== 1 || !sel[0].isEmpty) {
      return;
    }
    const at = sel[0].active;
    for (const seen of this.pending) {
      if (seen.uri === uri && seen.accept && seen.accept.movedAt === undefined && seen.accept.typedAt === undefined) {
        if (seen.ranges.some((r) => r.end.line === at.line && r.end.character === at.character)) {
          seen.accept.movedAt = Date.now();
        }
      }
    }
  }

  private visibleUris(): Set<string> {
    return new Set(vscode.window.visibleTextEditors.map((ed) => ed.document.uri.toString()));
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    const doc = e.document;
    if (e.contentChanges.length === 0 || !SCHEMES.has(doc.uri.scheme)) {
      return;
    }
    // Read everything now: by the time the burst is decided the document may have moved on.
    const uri = doc.uri.toString();
    const now = Date.now();
    const hunks: Hunk[] = e.contentChanges.map((c) => ({
      range: plainRange(c.range),
      rangeOffset: c.rangeOffset,
      rangeLength: c.rangeLength,
      text: c.text,
    }));
    const visible = vscode.window.visibleTextEditors.some((ed) => ed.document.uri.toString() === uri);
    const focused = vscode.window.state.focused;
    const offered = (this.offers.get(uri) ?? []).filter((o) => now - o.at < OFFER_TTL_MS).map((o) => o.edits);
    let accept: Seen['accept'];
    const mark = this.accepting;
    if (mark && mark.uri === uri) {
      this.accepting = undefined; // consumed by this change, whatever it is
      accept = {
        at: mark.at,
        versionBefore: mark.version,
        versionAfter: doc.version,
        cursor: mark.cursor,
        msAfter: now - mark.at,
        activeEditor: vscode.window.activeTextEditor?.document.uri.toString() === uri,
      };
    }
    this.pending.push({
      accept,
      uri,
      version: doc.version,
      at: now,
      doc,
      ranges: toRanges(insertedOffsets(hunks), (offset) => {
        const p = doc.positionAt(offset);
        return { line: p.line, character: p.character };
      }),
      facts: {
        hunks,
        undoRedo: e.reason === vscode.TextDocumentChangeReason.Undo || e.reason === vscode.TextDocumentChangeReason.Redo,
        detailedReason: detailedReasonOf(e),
        ownEdit: matchesOffered(hunks, offered),
        formatting: now <= (this.formattingUntil.get(uri) ?? 0),
        visible,
        hiddenForMs: visible ? 0 : now - (this.hiddenSince.get(uri) ?? this.startedAt),
        inTab: inTab(uri),
        windowFocused: focused,
        unfocusedForMs: focused ? 0 : now - this.focusChangedAt,
      },
    });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), BURST_MS);
    }
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    const burst = burstFacts(batch.map((s) => s.facts));
    let clipboard: string | undefined | null = null; // null: not read yet
    for (const seen of batch) {
      const kb = this.keyboard.get(seen.uri);
      const facts: ChangeFacts = {
        ...seen.facts,
        // Not `isDirty` as the change event found it: VS Code tells the extension host that a
        // clean document became dirty only after the change (a second, empty change event),
        // so the first edit of a saved file always looked clean. By now it has arrived, or
        // the edit was saved already (an assistant applying an edit and saving it at once).
        dirty: seen.doc.isDirty || (this.savedAt.get(seen.uri) ?? 0) >= seen.at,
        burst,
        pasted: false,
        keyboard: kb && { msAgo: Math.abs(seen.at - kb.at), selections: kb.selections },
        // A Keyboard selection change right after this change is its own: the user typed it.
        inlineAccept: seen.accept && {
          ...seen.accept,
          typedSince: seen.accept.typedAt !== undefined && seen.accept.typedAt <= seen.at + TYPED_WITHIN_MS,
          cursorMovedByAccept: seen.accept.movedAt !== undefined,
        },
      };
      let verdict = classifyChange(facts);
      if (verdict.kind === 'assistant') {
        // Only now is the clipboard worth reading: pasted text is never an assistant's. Only
        // on the desktop: in a browser (code-server, vscode.dev) reading it may ask the user
        // for permission. A paste lands in the focused editor anyway, which the stable
        // signals never attribute, and a Ctrl+V paste looks like typing.
        if (clipboard === null) {
          clipboard =
            vscode.env.uiKind === vscode.UIKind.Desktop
              ? await vscode.env.clipboard.readText().then(
                  (t) => t,
                  () => undefined,
                )
              : undefined;
        }
        verdict = classifyChange({ ...facts, pasted: insertsClipboard(facts.hunks, clipboard) });
      }
      if (verdict.kind === 'unsure') {
        // Not typing, not the user's command, yet not provably an assistant's: say so, so a
        // user wondering why an assistant's edit taught nothing can see why.
        this.log(`Not counted as an assistant's edit (${verdict.why}): ${seen.uri} version ${seen.version}`);
      } else if (verdict.kind === 'assistant') {
        this.log(`An assistant's edit (${verdict.source}: ${verdict.why}): ${seen.uri} version ${seen.version}`);
        this.send({ uri: seen.uri, version: seen.version, source: verdict.source, ranges: seen.ranges });
      }
    }
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.pending = [];
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}
