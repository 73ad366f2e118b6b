import * as assert from 'node:assert/strict';
import { markdownReport } from '../../../../src/cli/reports/report-markdown';
import { markdownCell, terminalText } from '../../../../src/cli/reports/report-escape';
import { formatTable } from '../../../../src/cli/reports/verify-output';
import { Redactor, isSecretName } from '../../../../src/model/redaction';
import { gfmCells, HOSTILE_TEXTS, hostileInput } from './report-helpers';

/**
 * Issue 24, item 3: a criterion's text and a command's output are the workspace's words. In the
 * Markdown job summary they must not end a cell (a FAIL row shown as PASS), open a link or an
 * image, or carry raw controls; in the terminal no escape sequence may reach the screen.
 */

describe('reports escape for their format (issue 24)', () => {
  it('a Markdown summary cannot show a failing row as passing: every row has four cells, its outcome cell ❌ FAIL', () => {
    const md = markdownReport(hostileInput());
    const lines = md.split('\n');
    const header = lines.indexOf('| Criterion | Outcome | Priority | Evidence |');
    assert.ok(header > 0, md);
    const rows = lines.slice(header + 2).filter((l) => l.startsWith('| '));
    assert.equal(rows.length, HOSTILE_TEXTS.length, 'one row per criterion: no text made a row of its own');
    for (const row of rows) {
      const cells = gfmCells(row);
      assert.equal(cells.length, 4, `four cells: ${row}`);
      assert.equal(cells[1], '❌ FAIL', row);
      assert.equal(cells[2], 'CRITICAL', row);
    }
  });

  it('no link, image, HTML or autolink is made, and no control character is written raw', () => {
    const md = markdownReport(hostileInput());
    // Every [ ] ( ) ! in the workspace's words is backslash-escaped; < > are entities.
    assert.doesNotMatch(md, /(^|[^\\])\]\(/m, 'no "](" that opens a link target');
    assert.doesNotMatch(md, /(^|[^\\])!\[/m, 'no "![" that opens an image');
    assert.doesNotMatch(md, /<(img|a)\b/i, 'no HTML tag');
    assert.doesNotMatch(md, /https:\/\/evil/, 'no bare URL for the autolink extension');
    assert.doesNotMatch(md, /(^|[^\\])www\.evil/, 'no www. autolink');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(md, /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/, 'no raw control character or line separator');
    assert.match(md, /bell␇ escape␛\\\[2J␛\\\]0;owned␇ nul␀ del␡ csi\\\\u\\\{9b\\\}31m/, 'controls shown as their pictures (a C1 as \\u{9b}, its backslash and braces escaped)');
  });

  it('escapes backslashes before pipes, and [ ] ( ) ! < > in a cell', () => {
    assert.equal(markdownCell('a | b'), 'a \\| b');
    assert.equal(markdownCell('a \\| b'), 'a \\\\\\| b', 'the backslash, then the pipe');
    assert.equal(markdownCell('[x](y) ![i](j)'), '\\[x\\]\\(y\\) \\!\\[i\\]\\(j\\)');
    assert.equal(markdownCell('<b> & </b>'), '&lt;b&gt; &amp; &lt;/b&gt;');
    assert.equal(markdownCell('one\ntwo\r\nthree'), 'one two three');
  });

  it('the terminal table makes ESC, BEL, NUL, DEL and C1 controls visible, so no escape sequence reaches the terminal', () => {
    const out = formatTable(hostileInput().set, { effort: 'FAST', parallelism: 1, written: false });
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(out, /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
    assert.match(out, /escape␛\[2J␛\]0;owned␇/);
    assert.equal(terminalText('a\u001bb\u0000c\u009bd'), 'a␛b␀c\\u{9b}d');
  });
});

describe('redaction by value and by shape (issue 24)', () => {
  it('takes out values it was told of, key blocks, token shapes and secret-named assignments, and counts them', () => {
    const r = new Redactor().add(['hunter2-long-password', 'true', '12345']);
    const text = [
      'db password is hunter2-long-password (again: hunter2-long-password)',
      `GITHUB_TOKEN=ghp_${'a'.repeat(36)} AKIAIOSFODNN7EXAMPLE xoxb-1234567890-abcdefghij`,
      'MYAPP_DB_PASS=s3cret-value MYSQL_PWD=another1 PWD=/home/u OLDPWD=/tmp',
      '{"client_secret": "abc-def-ghi", "name": "kept"}',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'postgres://app:pa55word@db.example/x',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
      'enabled=true count=12345',
    ].join('\n');
    const out = r.redact(text);
    for (const gone of ['hunter2-long-password', 'ghp_', 'AKIAIOSFODNN7EXAMPLE', 'xoxb-', 's3cret-value', 'another1', 'abc-def-ghi', 'eyJhbGci', 'pa55word', 'MIIEow']) assert.ok(!out.text.includes(gone), `${gone} is gone: ${out.text}`);
    for (const kept of ['PWD=/home/u', 'OLDPWD=/tmp', '"name": "kept"', 'enabled=true count=12345', 'postgres://app:']) assert.ok(out.text.includes(kept), `${kept} is kept: ${out.text}`);
    assert.equal(out.count, 11, "two of the told value, three token shapes, two assignments, a JSON member, a JWT, a URL password, a key block");
    assert.equal(r.redact(out.text).count, 0, 'redacting twice counts nothing more');
  });

  it('a key block whose beginning an output tail cut off is still taken out', () => {
    const out = new Redactor().redact('c2VjcmV0LWtleS1ib2R5\nbW9yZS1rZXk=\n-----END OPENSSH PRIVATE KEY-----\nafter');
    assert.equal(out.text, '[redacted]\nafter');
  });

  it('treats PASS, PWD, CRED and AUTH words as secret names, but not PWD, OLDPWD, PATH or GIT_AUTHOR_NAME', () => {
    for (const name of ['MYAPP_DB_PASS', 'MYSQL_PWD', 'AZURE_CRED', 'NPM_CONFIG__AUTH', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'SSH_PRIVATE_KEY']) assert.equal(isSecretName(name), true, name);
    for (const name of ['PWD', 'OLDPWD', 'PATH', 'GIT_AUTHOR_NAME', 'PASSENGER', 'KEYBOARD', 'HOME', 'GIT_ASKPASS_HELPER_DIR']) assert.equal(isSecretName(name), false, name);
  });
});
