import * as assert from 'node:assert/strict';
import { keepLastSessionEntry, sessionMark } from '../../../../src/app/gate/session-log';

const entry = (work: string, failing = 'none') => ['### Iteration 0 — 2026-11-26', '- Phase: VERIFY', '- Criteria: 0/1 passing', `- Work: ${work}`, `- Failing: ${failing}`];

describe('gate: one PRD LOG entry per agent session (issue 25 item 3)', () => {
  const a = sessionMark('claude-code:abc123:');
  const b = sessionMark('codex:other');

  it('marks a session by a short digest of its key, the same for the same key', () => {
    assert.match(a, /^session [0-9a-f]{8}$/);
    assert.equal(a, sessionMark('claude-code:abc123:'));
    assert.notEqual(a, b);
  });

  it("keeps the session's last entry, drops its earlier ones whole, and leaves other sessions' and people's entries", () => {
    const text = [
      '# P',
      '',
      '## LOG',
      '',
      ...entry('Criteria written by a person'),
      '',
      ...entry(`Verified 1 criteria with ideal-state gate (Claude Code Stop, ${a}), which blocked the stop (1 of 3); x: 1 FAIL`, 'ISC-1'),
      '',
      ...entry(`Verified 1 criteria with ideal-state gate (Codex Stop, ${b}), which blocked the stop (1 of 3); x: 1 FAIL`, 'ISC-1'),
      '',
      ...entry(`Verified 1 criteria with ideal-state gate (Claude Code Stop, ${a}), which blocked the stop (2 of 3); x: 1 FAIL`, 'ISC-1'),
      '',
      ...entry(`Verified 1 criteria with ideal-state gate (Claude Code Stop, ${a}), which let the stop through; x: 1 PASS`),
      '',
      '## After',
      'kept',
      '',
    ].join('\n');
    const out = keepLastSessionEntry(text, a);
    const works = [...out.matchAll(/^- Work: (.*)$/gm)].map((m) => m[1]);
    assert.deepEqual(works, ['Criteria written by a person', `Verified 1 criteria with ideal-state gate (Codex Stop, ${b}), which blocked the stop (1 of 3); x: 1 FAIL`, `Verified 1 criteria with ideal-state gate (Claude Code Stop, ${a}), which let the stop through; x: 1 PASS`]);
    assert.equal((out.match(/^### Iteration/gm) ?? []).length, 3);
    assert.doesNotMatch(out, /\n\n\n/, 'no blank lines pile up where entries were');
    assert.match(out, /## After\nkept\n$/);
  });

  it('changes nothing with one entry of the session, or no LOG', () => {
    const one = ['## LOG', '', ...entry(`Verified with ideal-state gate (Claude Code Stop, ${a}), which let the stop through: 1 PASS`), ''].join('\n');
    assert.equal(keepLastSessionEntry(one, a), one);
    assert.equal(keepLastSessionEntry('# No log\n', a), '# No log\n');
  });

  it('keeps CRLF line endings', () => {
    const text = ['## LOG', '', ...entry(`V (Claude Code Stop, ${a}), which blocked`), '', ...entry(`V (Claude Code Stop, ${a}), which let the stop through`), ''].join('\r\n');
    const out = keepLastSessionEntry(text, a);
    assert.doesNotMatch(out, /which blocked/);
    assert.doesNotMatch(out.replace(/\r\n/g, ''), /\n/);
  });
});
