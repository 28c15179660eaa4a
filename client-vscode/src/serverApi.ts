// Typed wrappers around the server's executeCommand surface.
// Takes a bare `send` function instead of a LanguageClient so it stays free of `vscode`
// (unit-testable) and so a restarted client can be swapped in without rebuilding callers.
import {
  BeginTaskResult,
  Lesson,
  PlaybookResult,
  ProgressChartResult,
  ProgressResult,
  Rule,
  ServerCommand,
  StatsResult,
  ToolResult,
} from './protocol';

export type SendRequest = (method: string, params: unknown) => Promise<unknown>;

export class ServerApi {
  constructor(private readonly send: SendRequest) {}

  /** Every command takes exactly one JSON object argument (protocol: "Commands"). */
  async execute<T>(command: string, params: Record<string, unknown> = {}): Promise<T> {
    return (await this.send('workspace/executeCommand', { command, arguments: [params] })) as T;
  }

  /** An agent tool of the server's tool table (the MCP server's), for agent mode. */
  tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return this.execute(ServerCommand.tool, { name, arguments: args });
  }

  teach(text: string, kind?: string): Promise<{ lesson: Lesson }> {
    return this.execute(ServerCommand.teach, kind ? { text, kind } : { text });
  }
  teachRule(statement: string): Promise<{ rule: Rule }> {
    return this.execute(ServerCommand.teachRule, { statement });
  }
  forget(id: number): Promise<{ removed: boolean }> {
    return this.execute(ServerCommand.forget, { id });
  }
  forgetRule(id: number): Promise<{ removed: boolean }> {
    return this.execute(ServerCommand.forgetRule, { id });
  }
  pin(id: number, pinned: boolean): Promise<{ ok: boolean }> {
    return this.execute(ServerCommand.pin, { id, pinned });
  }
  setRule(id: number, change: { pinned?: boolean; active?: boolean }): Promise<{ ok: boolean }> {
    return this.execute(ServerCommand.setRule, { id, ...change });
  }
  async lessons(query = '', limit = 200): Promise<Lesson[]> {
    const r = await this.execute<{ lessons: Lesson[] }>(ServerCommand.lessons, { query, limit });
    return r.lessons ?? [];
  }
  async rules(includeUnconfident = true): Promise<Rule[]> {
    const r = await this.execute<{ rules: Rule[] }>(ServerCommand.rules, { includeUnconfident });
    return r.rules ?? [];
  }
  playbook(query: string): Promise<PlaybookResult> {
    return this.execute(ServerCommand.playbook, { query });
  }
  beginTask(goal: string): Promise<BeginTaskResult> {
    return this.execute(ServerCommand.beginTask, { goal });
  }
  endTask(params: { taskId: string | number; success: boolean; steps?: number }): Promise<{ episodeId: number }> {
    return this.execute(ServerCommand.endTask, params);
  }
  feedback(good: boolean, note?: string): Promise<{ credited: number }> {
    return this.execute(ServerCommand.feedback, note ? { good, note } : { good });
  }
  exportRules(): Promise<{ path: string }> {
    return this.execute(ServerCommand.exportRules, {});
  }
  progress(): Promise<ProgressResult> {
    return this.execute(ServerCommand.progress, {});
  }
  /** Progress and the same result drawn by the server's one chart renderer. */
  progressChart(): Promise<ProgressChartResult> {
    return this.execute(ServerCommand.progressChart, {});
  }
  stats(): Promise<StatsResult> {
    return this.execute(ServerCommand.stats, {});
  }
}
