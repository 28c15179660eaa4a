// A tiny in-editor assistant for the end-to-end tests (plain JS, no build step, no
// dependencies). It does what an assistant extension does through VS Code's stable API:
//
// - "Test Assistant: Apply the Planned Edit" reads plan-<n>.json from its control folder,
//   applies that multi-hunk WorkspaceEdit to the file it names and saves the file (an
//   assistant extension writing code into a document the user has open);
// - an InlineCompletionItemProvider offers the planned completion text on a line whose text
//   before the cursor is the plan's `prefix` (ghost text the user accepts with Tab);
// - "Test Assistant: Write Comodor Stats" writes the server's comodor.stats to stats-<n>.json.
//
// The control folder is $COMODOR_E2E_ASSISTANT_DIR. Every command also writes what it did to
// that folder, so the test can wait on a file instead of guessing.
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

function controlDir() {
  const dir = process.env.COMODOR_E2E_ASSISTANT_DIR;
  if (!dir) {
    throw new Error('COMODOR_E2E_ASSISTANT_DIR is not set');
  }
  return dir;
}

let planCount = 0;
let statsCount = 0;

function writeJson(name, data) {
  const file = path.join(controlDir(), name);
  fs.writeFileSync(file + '.tmp', JSON.stringify(data, null, 2));
  fs.renameSync(file + '.tmp', file); // the test never reads half a file
}

function readJson(name) {
  return JSON.parse(fs.readFileSync(path.join(controlDir(), name), 'utf8'));
}

async function applyPlan() {
  planCount += 1;
  const n = planCount;
  try {
    const plan = readJson(`plan-${n}.json`);
    const uri = vscode.Uri.file(plan.file);
    const doc = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    for (const h of plan.hunks) {
      edit.replace(uri, new vscode.Range(h.line, h.character, h.endLine ?? h.line, h.endCharacter ?? h.character), h.text);
    }
    const before = { version: doc.version, dirty: doc.isDirty };
    const applied = await vscode.workspace.applyEdit(edit);
    const after = { version: doc.version, dirty: doc.isDirty };
    const saved = plan.save === false ? false : await doc.save();
    writeJson(`applied-${n}.json`, { applied, saved, before, after, text: doc.getText() });
  } catch (error) {
    writeJson(`applied-${n}.json`, { error: String(error && error.stack ? error.stack : error) });
  }
}

async function writeStats() {
  statsCount += 1;
  const n = statsCount;
  try {
    const stats = await vscode.commands.executeCommand('comodor.stats', {});
    writeJson(`stats-${n}.json`, { stats });
  } catch (error) {
    writeJson(`stats-${n}.json`, { error: String(error) });
  }
}

let acceptCount = 0;

/** After VS Code inserted an accepted completion (the item's command): where it landed, so a
 *  test can tell which document version was the assistant's. */
function accepted(uri) {
  acceptCount += 1;
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
  writeJson(`accepted-${acceptCount}.json`, { uri, version: doc ? doc.version : null, at: Date.now() });
}

/** Offers completion.json's `text` where the line before the cursor is its `prefix`
 *  (or, with `offers: [{prefix, text}, ...]`, the first offer whose prefix matches). */
const inlineProvider = {
  provideInlineCompletionItems(document, position) {
    let offers;
    try {
      const data = readJson('completion.json');
      offers = Array.isArray(data.offers) ? data.offers : [data];
    } catch {
      return [];
    }
    const before = document.lineAt(position.line).text.slice(0, position.character);
    const offer = offers.find((o) => o.prefix === before);
    if (!offer) {
      return [];
    }
    fs.appendFileSync(path.join(controlDir(), 'offered.log'), `${document.uri.toString()} ${position.line}\n`);
    const item = new vscode.InlineCompletionItem(offer.text, new vscode.Range(position, position));
    item.command = { command: 'testAssistant.accepted', title: 'accepted', arguments: [document.uri.toString()] };
    return [item];
  },
};

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('testAssistant.applyPlan', applyPlan),
    vscode.commands.registerCommand('testAssistant.writeStats', writeStats),
    vscode.commands.registerCommand('testAssistant.accepted', accepted),
    vscode.languages.registerInlineCompletionItemProvider([{ language: 'python' }, { language: 'typescript' }], inlineProvider),
  );
  writeJson('activated.json', { vscode: vscode.version, at: Date.now() });
}

function deactivate() {}

module.exports = { activate, deactivate };
