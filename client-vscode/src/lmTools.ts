// Language-model tools for VS Code agent mode: the same tools the MCP server offers other agents
// (their names, descriptions and input schemas are generated into package.json from the server's
// tool table, `comodor-lsp schemas`), each run on the server through `comodor.tool`, so an agent
// in the editor and an agent over MCP get the same validation and the same words.
// Registered only when the running VS Code exposes `vscode.lm.registerTool` (forks may not).
import * as vscode from 'vscode';
import type { ComodorServer } from './languageServer';
import manifest from '../package.json';

interface ToolEntry {
  name: string;
  displayName: string;
}

export function registerLanguageModelTools(server: ComodorServer): vscode.Disposable[] {
  const lm = (vscode as { lm?: Partial<typeof vscode.lm> }).lm;
  if (typeof lm?.registerTool !== 'function') {
    server.output.appendLine('This editor has no language-model tool API; Comodor tools are not registered.');
    return [];
  }
  const register = lm.registerTool.bind(lm);
  const tools = (manifest.contributes.languageModelTools ?? []) as ToolEntry[];
  return tools.map((tool) =>
    register<Record<string, unknown>>(tool.name, {
      prepareInvocation: () => ({ invocationMessage: tool.displayName }),
      invoke: async (options) => {
        const answer = await server.api.tool(tool.name, options.input ?? {});
        if (answer.isError) {
          throw new Error(answer.text); // the agent sees which argument was wrong
        }
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text)]);
      },
    }),
  );
}
