// Settings (`comodor.*` in VS Code) → the server's initializationOptions / `comodor` section.
// One table drives both the initializationOptions sent at start and the answers to the
// server's `workspace/configuration` pulls, so the two can never disagree. The table itself is
// generated from the server's settings classes (generated/settings.ts, `comodor-lsp schemas`). Client-only
// settings (server.path, server.interpreter, trace.server) are deliberately not in the table: the server has no
// use for them. Pure module: the caller passes a reader over VS Code's configuration.

import { SERVER_SETTINGS } from './generated/settings';

export type SettingType = 'boolean' | 'number' | 'string' | 'string[]';

export interface SettingSpec {
  /** Key under the `comodor.` section, e.g. `learning.topK`. */
  key: string;
  type: SettingType;
  /** Path in initializationOptions; defaults to the key split on dots. */
  path?: string[];
  /** Omit the field when the value is an empty string (meaning "server default"). */
  omitEmpty?: boolean;
  /** The server's default: package.json must contribute the same one. */
  default: unknown;
}

export { SERVER_SETTINGS };

/** Settings only the extension reads. */
export const CLIENT_SETTINGS = ['server.path', 'server.interpreter', 'trace.server'] as const;

export type ConfigReader = (key: string) => unknown;

/** What `WorkspaceConfiguration.inspect` returns, the parts this module reads. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The value the user set, most specific first, or undefined when nobody set it. Defaults
 * are never sent: the server has the same defaults (generated from one source), and a default
 * sent as if chosen would hide the user-level settings file every other door reads.
 */
export function explicitValue(inspected: Inspected | undefined): unknown {
  return inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
}
export type JsonObject = { [key: string]: unknown };

function hasType(value: unknown, type: SettingType): boolean {
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

/**
 * Build the nested `comodor` object the protocol describes. Values of the wrong type (a
 * hand-edited settings.json) are dropped rather than sent, so the server falls back to its
 * default instead of rejecting the whole configuration.
 */
export function buildServerSettings(read: ConfigReader): JsonObject {
  const out: JsonObject = {};
  for (const spec of SERVER_SETTINGS) {
    const value = read(spec.key);
    if (value === undefined || value === null || !hasType(value, spec.type)) {
      continue;
    }
    if (spec.omitEmpty && value === '') {
      continue;
    }
    const path = spec.path ?? spec.key.split('.');
    let node = out;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      if (typeof next !== 'object' || next === null) {
        node[part] = {};
      }
      node = node[part] as JsonObject;
    }
    node[path[path.length - 1]] = Array.isArray(value) ? [...value] : value;
  }
  return out;
}
