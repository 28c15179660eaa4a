import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRUSTED_HOVER_COMMANDS, rewriteHoverLinks, ruleIdArgument } from '../src/hoverLinks';

// What the server renders for a VS Code client (comodor/lsp/hover.py).
const SERVER_HOVER =
  '**House rules**\n\n' +
  '- Use single quotes for strings. — *2 corrections · 100% agree* ' +
  '[Forget](command:comodor.forgetRule?%5B%7B%22id%22%3A%202%7D%5D) · ' +
  '[Pin](command:comodor.setRule?%5B%7B%22id%22%3A%202%2C%20%22pinned%22%3A%20true%7D%5D)';

test('hover links to server commands are pointed at the extension wrappers', () => {
  const out = rewriteHoverLinks(SERVER_HOVER);
  assert.ok(out.startsWith('**House rules**'));
  assert.match(out, /\[Forget\]\(command:comodor\.ui\.forgetRuleById\?%5B%7B%22id%22%3A%202%7D%5D\)/);
  assert.match(out, /\[Pin\]\(command:comodor\.ui\.setRuleById\?%5B/);
  assert.doesNotMatch(out, /command:comodor\.(forgetRule|setRule)\b/);
  for (const id of TRUSTED_HOVER_COMMANDS) {
    assert.match(id, /^comodor\.ui\./);
  }
});

test('other links and other commands are left alone', () => {
  const text = '[docs](https://example.com) [x](command:comodor.forgetRules?1) [y](command:other.cmd)';
  assert.equal(rewriteHoverLinks(text), text);
});

test('hover link arguments are checked', () => {
  assert.deepEqual(ruleIdArgument({ id: 2, pinned: true }), { id: 2, pinned: true });
  assert.deepEqual(ruleIdArgument({ id: 3, active: false, extra: 1 }), { id: 3, active: false });
  assert.equal(ruleIdArgument({ id: '2' }), undefined);
  assert.equal(ruleIdArgument(undefined), undefined);
  assert.equal(ruleIdArgument({ id: 1.5 }), undefined);
});
