// Language-model tools for VS Code agent mode: the agent asks Comodor for a playbook before a
// task and reports the outcome after, which is how lessons earn or lose confidence.
// Registered only when the running VS Code exposes `vscode.lm.registerTool` (forks may not).
import * as vscode from 'vscode';
import type { ComodorServer } from './languageServer';

interface PlaybookInput {
  query: string;
}
interface BeginTaskInput {
  goal: string;
}
interface EndTaskInput {
  taskId: string | number;
  success: boolean;
  steps?: number;
}

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string' || !value.trim()) {
    throw new Error(`"${name}" must be a non-empty string`);
  }
  return value;
}

export function registerLanguageModelTools(server: ComodorServer): vscode.Disposable[] {
  const lm = (vscode as { lm?: Partial<typeof vscode.lm> }).lm;
  if (typeof lm?.registerTool !== 'function') {
    server.output.appendLine('This editor has no language-model tool API; Comodor tools are not registered.');
    return [];
  }
  const register = lm.registerTool.bind(lm);
  return [
    register<PlaybookInput>('comodor_playbook', {
      prepareInvocation: (options) => ({ invocationMessage: `Recalling Comodor playbook for “${options.input.query}”` }),
      invoke: async (options) => {
        const r = await server.api.playbook(requireString(options.input.query, 'query'));
        return text(r.text || 'Comodor has no lessons or house rules that apply to this request.');
      },
    }),
    register<BeginTaskInput>('comodor_beginTask', {
      prepareInvocation: () => ({ invocationMessage: 'Starting a Comodor task' }),
      invoke: async (options) => {
        const r = await server.api.beginTask(requireString(options.input.goal, 'goal'));
        const body = r.text || 'No lessons or house rules apply yet.';
        return text(`taskId: ${r.taskId}\n(Pass this taskId to comodor_endTask when the task is finished.)\n\n${body}`);
      },
    }),
    register<EndTaskInput>('comodor_endTask', {
      prepareInvocation: (options) => ({
        invocationMessage: `Recording the task outcome (${options.input.success ? 'success' : 'failure'})`,
      }),
      invoke: async (options) => {
        const { taskId, success, steps } = options.input;
        if (typeof taskId !== 'string' && typeof taskId !== 'number') {
          throw new Error('"taskId" is required (from comodor_beginTask)');
        }
        if (typeof success !== 'boolean') {
          throw new Error('"success" must be true or false');
        }
        const r = await server.api.endTask(typeof steps === 'number' ? { taskId, success, steps } : { taskId, success });
        return text(`Recorded the task outcome as episode ${r.episodeId}.`);
      },
    }),
  ];
}
