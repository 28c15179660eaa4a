// "Show Playbook for…" output as a read-only virtual Markdown document, shown in the
// Markdown preview when the built-in Markdown extension is there, as text otherwise.
import * as vscode from 'vscode';
import type { PlaybookResult } from './protocol';

export const PLAYBOOK_SCHEME = 'comodor-playbook';

export function playbookMarkdown(query: string, r: PlaybookResult): string {
  const body = r.text.trim() ? r.text.trim() : '_Nothing in memory applies to this yet._';
  const counts = `${r.rules.length} house rule${r.rules.length === 1 ? '' : 's'}, ${r.lessons.length} lesson${
    r.lessons.length === 1 ? '' : 's'
  }, ~${r.tokens} tokens`;
  return `# Playbook for “${query.replace(/\s+/g, ' ').trim()}”\n\n${body}\n\n---\n\n_${counts}. This is what your assistant is given for this request._\n`;
}

export class PlaybookDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  async show(query: string, result: PlaybookResult): Promise<void> {
    this.counter++;
    const name = query.replace(/[\\/:*?"<>|\s]+/g, ' ').trim().slice(0, 40) || 'request';
    const uri = vscode.Uri.from({ scheme: PLAYBOOK_SCHEME, path: `/Playbook - ${name}.md`, query: String(this.counter) });
    this.contents.set(uri.toString(), playbookMarkdown(query, result));
    const doc = await vscode.workspace.openTextDocument(uri);
    const md = doc.languageId === 'markdown' ? doc : await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    const commands = await vscode.commands.getCommands(true);
    if (commands.includes('markdown.showPreview')) {
      await vscode.commands.executeCommand('markdown.showPreview', md.uri);
    } else {
      await vscode.window.showTextDocument(md, { preview: true });
    }
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}
