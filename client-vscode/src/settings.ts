// Settings (`comodor.*` in VS Code) → the server's initializationOptions / `comodor` section.
// One table drives both the initializationOptions sent at start and the answers to the
// server's `workspace/configuration` pulls, so the two can never disagree. Client-only
// settings (server.path, trace.server) are deliberately not in the table: the server has no
// use for them. Pure module: the caller passes a reader over VS Code's configuration.

export type SettingType = 'boolean' | 'number' | 'string' | 'string[]';

export interface SettingSpec {
  /** Key under the `comodor.` section, e.g. `learning.topK`. */
  key: string;
  type: SettingType;
  /** Path in initializationOptions; defaults to the key split on dots. */
  path?: string[];
  /** Omit the field when the value is an empty string (meaning "server default"). */
  omitEmpty?: boolean;
}

export const SERVER_SETTINGS: readonly SettingSpec[] = [
  { key: 'brainPath', type: 'string', omitEmpty: true },
  { key: 'learning.enabled', type: 'boolean' },
  { key: 'learning.topK', type: 'number' },
  { key: 'learning.maxPlaybookTokens', type: 'number' },
  { key: 'learning.rulesTokens', type: 'number' },
  { key: 'learning.halfLifeDays', type: 'number' },
  { key: 'learning.minConfidence', type: 'number' },
  { key: 'learning.shareScope', type: 'string' },
  { key: 'learning.corrections', type: 'boolean' },
  { key: 'learning.rules', type: 'boolean' },
  { key: 'learning.announce', type: 'boolean' },
  { key: 'learning.prefetch', type: 'boolean' },
  { key: 'learning.prefetchDelayMs', type: 'number' },
  { key: 'learning.correctionWindowMinutes', type: 'number' },
  { key: 'learning.holdoutRate', type: 'number' },
  { key: 'reflect.enabled', type: 'boolean' },
  { key: 'reflect.endpoint', type: 'string' },
  { key: 'reflect.model', type: 'string' },
  { key: 'reflect.apiKeyEnv', type: 'string' },
  { key: 'reflect.timeoutS', type: 'number' },
  { key: 'watch.enabled', type: 'boolean' },
  { key: 'watch.exclude', type: 'string[]' },
  { key: 'watch.maxFileBytes', type: 'number' },
  { key: 'sync.targets', type: 'string[]' },
  { key: 'diagnostics.severity', type: 'string' },
  { key: 'diagnostics.configRules', type: 'boolean' },
];

/** Settings only the extension reads. */
export const CLIENT_SETTINGS = ['server.path', 'trace.server'] as const;

export type ConfigReader = (key: string) => unknown;
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
