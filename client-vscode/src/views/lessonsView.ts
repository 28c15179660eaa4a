// "Lessons" tree: what the assistant has been taught or has learned, pinned ones first.
import * as vscode from 'vscode';
import { lessonDescription, lessonText, lessonTooltip, truncate } from '../format';
import type { ComodorServer } from '../languageServer';
import type { Lesson } from '../protocol';

const KIND_ICONS: Record<string, string> = {
  preference: 'heart',
  fact: 'book',
  heuristic: 'lightbulb',
  pitfall: 'warning',
  env: 'server-environment',
};

export class LessonsView implements vscode.TreeDataProvider<Lesson>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Lesson | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly server: ComodorServer) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(element?: Lesson): Promise<Lesson[]> {
    if (element || this.server.state !== 'running') {
      return [];
    }
    try {
      const lessons = await this.server.api.lessons('', 200);
      return [...lessons].sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.confidence - a.confidence);
    } catch (err) {
      this.server.output.appendLine(`Lessons view: ${String(err)}`);
      return [];
    }
  }

  getTreeItem(lesson: Lesson): vscode.TreeItem {
    const item = new vscode.TreeItem(truncate(lessonText(lesson), 120), vscode.TreeItemCollapsibleState.None);
    item.id = `lesson:${lesson.id}`;
    item.description = lessonDescription(lesson);
    item.tooltip = lessonTooltip(lesson);
    item.iconPath = new vscode.ThemeIcon(lesson.pinned ? 'pinned' : (KIND_ICONS[lesson.kind] ?? 'note'));
    item.contextValue = `lesson.${lesson.pinned ? 'pinned' : 'unpinned'}`;
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
