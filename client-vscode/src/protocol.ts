// Shapes of the Comodor protocol (shared/spec/protocol.md, version 1) as the client sees them.
// The server owns these names; this file only mirrors them, so a rename here is a bug.
// Pure module: no `vscode` import, so unit tests can load it.

export type LessonKind = 'preference' | 'fact' | 'heuristic' | 'pitfall' | 'env';
export type RuleCategory = 'style' | 'workflow' | 'preference' | 'avoid';
export type RuleSource = 'user' | 'correction' | 'evidence' | 'observation';

export interface Lesson {
  id: number;
  kind: LessonKind;
  scope: string;
  trigger: string;
  guidance: string;
  confidence: number;
  uses: number;
  wins: number;
  losses: number;
  pinned: boolean;
  source: string;
  createdAt: number;
  updatedAt: number;
  lastUsed: number | null;
}

export interface Rule {
  id: number;
  key: string;
  value: string;
  category: RuleCategory;
  statement: string;
  detail: string;
  scope: string;
  language: string | null;
  support: number;
  against: number;
  strength: number;
  confident: boolean;
  pinned: boolean;
  active: boolean;
  source: RuleSource;
  createdAt: number;
  updatedAt: number;
  /** Added by the server: the evidence in words, e.g. `3 corrections · 100% agree`. */
  evidence: string;
  /** Added by the server: only a teammate's committed house-rules.md stands behind it. */
  team?: boolean;
}

export interface Series {
  key: string;
  label: string;
  values: number[];
  change: number | null;
  improving: boolean | null;
  sparkline: string;
}

export interface ProgressResult {
  episodes: number;
  headline: string;
  enoughData: boolean;
  successRate: number | null;
  earlySuccessRate: number | null;
  lessons: number;
  rulesActive: number;
  series: Series[];
}

export interface PlaybookResult {
  text: string;
  lessons: Lesson[];
  rules: Rule[];
  prefetched: boolean;
  tokens: number;
}

export interface BeginTaskResult {
  taskId: string | number;
  text: string;
  lessons: Lesson[];
  rules: Rule[];
  prefetched: boolean;
}

export interface StatsResult {
  lessons: number;
  rules: number;
  confidentRules: number;
  episodes: number;
  agentWrites: number;
  corrections: number;
  undos: number;
  scope: string;
  brainPath: string;
  /** Added by the server: the workspace watcher's state (native, polling, starting, off, stopped). */
  watching?: string;
  /** Added by the server: recalls computed ahead and not used yet. */
  prefetchReady?: number;
}

export type MemoryAction =
  | 'rule'
  | 'learned'
  | 'taught'
  | 'forgot'
  | 'forgotRule'
  | 'feedback'
  | 'recalled'
  | 'correction'
  | 'undo';

/** `comodor/memory` notification params. Extra fields may appear (the protocol allows additions). */
export interface MemoryNotification {
  action: MemoryAction | string;
  items?: unknown[];
  uri?: string;
  ruleKeys?: string[];
  [extra: string]: unknown;
}

export const MEMORY_NOTIFICATION = 'comodor/memory';

/** Server command ids. vscode-languageclient registers these as VS Code commands itself,
 *  so the extension must never contribute or register them (it would collide). */
export const ServerCommand = {
  teach: 'comodor.teach',
  teachRule: 'comodor.teachRule',
  forget: 'comodor.forget',
  forgetRule: 'comodor.forgetRule',
  pin: 'comodor.pin',
  setRule: 'comodor.setRule',
  lessons: 'comodor.lessons',
  rules: 'comodor.rules',
  playbook: 'comodor.playbook',
  beginTask: 'comodor.beginTask',
  endTask: 'comodor.endTask',
  feedback: 'comodor.feedback',
  exportRules: 'comodor.exportRules',
  progress: 'comodor.progress',
  stats: 'comodor.stats',
} as const;
