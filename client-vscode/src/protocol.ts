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

/** `better` or `worse` only for a change a statistical test stands behind; otherwise null. */
export type Direction = 'better' | 'worse' | null;

export interface Series {
  key: string;
  label: string;
  values: number[];
  /** Percent change, early window to late (v1; 0 from a zero base). */
  change: number | null;
  /** True/false only for a significant change, else null. */
  improving: boolean | null;
  sparkline: string;
  direction: Direction;
  significant: boolean;
  /** Corrected for every test of the result (Holm); null with too few tasks. */
  pValue: number | null;
  /** Percentage points for rates, percent change for counts (null from a zero base). */
  effect: number | null;
  unit: 'percent' | 'points';
  /** Values are outcomes (1 = yes, 0 = no), compared as a share of tasks. */
  rate: boolean;
  lowerIsBetter: boolean;
  /** The early window is the first `window` values, the late one the last `window`; 0 = not enough tasks. */
  window: number;
  early: number;
  late: number;
  /** The server's verdict in words, e.g. `Steps per task down 40% — better (p = 0.003)`. */
  verdict: string;
}

export interface Comparison {
  key: string;
  label: string;
  withMemory: number;
  withoutMemory: number;
  effect: number | null;
  unit: 'percent' | 'points';
  rate: boolean;
  lowerIsBetter: boolean;
  significant: boolean;
  /** `better` when tasks with memory are significantly better on this measure. */
  direction: Direction;
  pValue: number | null;
  verdict: string;
}

/** Tasks with memory against tasks held out from it (`learning.holdoutRate`). */
export interface Holdout {
  withMemory: number;
  withoutMemory: number;
  enoughData: boolean;
  helps: boolean | null;
  verdict: string;
  comparisons: Comparison[];
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
  /** Null when no task was held out from memory. */
  holdout: Holdout | null;
  /** How the verdicts were reached (windows, tests, correction), in words. */
  method: string;
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
  /** This task runs without memory (an empty playbook), see `learning.holdoutRate`. */
  holdout: boolean;
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
/** The code action kind of the server's "fix every Comodor issue in this document". */
export const FIX_ALL_KIND = 'source.fixAll.comodor';
/** Declared under `capabilities.experimental`: this client shows `comodor/memory` itself, so
 * the server sends no `window/showMessage` for a learned rule. */
export const MEMORY_CAPABILITY = 'comodorMemory';

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
  notHere: 'comodor.notHere',
} as const;
