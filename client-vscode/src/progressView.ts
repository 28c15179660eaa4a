// The progress dashboard webview. The HTML comes from progressHtml.ts (pure, tested) around the
// charts the server draws (`comodor.progressChart`); this file only owns the panel and re-renders
// it when memory changes while it is open.
import * as vscode from 'vscode';
import type { ComodorServer } from './languageServer';
import { renderProgressError, renderProgressHtml } from './progressHtml';

export class ProgressView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly server: ComodorServer) {}

  async show(): Promise<void> {
    if (this.panel) {
      this.panel.reveal();
    } else {
      this.panel = vscode.window.createWebviewPanel(
        'comodor.progress',
        'Comodor Progress',
        vscode.ViewColumn.Active,
        // No scripts and no local files: static HTML, the charts as data: SVG images.
        { enableScripts: false, localResourceRoots: [] },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
    }
    await this.render();
  }

  /** Re-render when open; cheap no-op otherwise. */
  async refresh(): Promise<void> {
    if (this.panel) {
      await this.render();
    }
  }

  private async render(): Promise<void> {
    const panel = this.panel;
    if (!panel) {
      return;
    }
    const opts = { cspSource: panel.webview.cspSource };
    try {
      const drawn = await this.server.api.progressChart();
      if (this.panel === panel) {
        panel.webview.html = renderProgressHtml(drawn, opts);
      }
    } catch (err) {
      if (this.panel === panel) {
        panel.webview.html = renderProgressError(err instanceof Error ? err.message : String(err), opts);
      }
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
