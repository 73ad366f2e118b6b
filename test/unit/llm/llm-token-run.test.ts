import * as assert from 'node:assert/strict';
import { runCli } from '../support/cli-helpers';
import { cacheShare, tokenRun, type TokenProvider } from '../fixtures/llm/token-run';
import { REPO_ROOT } from '../support/repo-root';

const root = REPO_ROOT;
const cli = (args: readonly string[], env: Record<string, string>) => runCli(args, { env });

/**
 * A STANDARD run of the command line against the caching contract fakes: most of its input
 * is read from the cache, it costs at most half of the same run without caching, and the
 * run's JSON answer carries the tokens and dollars the fake billed, to the cent.
 */
describe('prompt caching on a STANDARD run (run --json against caching contract fakes)', function () {
  this.timeout(120_000);
  const cases: [TokenProvider, string][] = [
    ['anthropic', 'claude-sonnet-4-6'],
    ['openai', 'gpt-5.6-terra'],
  ];
  for (const [provider, model] of cases) {
    it(`${provider} (${model}): at least 70 % cache reads, half the dollars, and the JSON answer matches the fake's bill`, async () => {
      const on = await tokenRun({ provider, model, caching: true, root, runCli: cli });
      const off = await tokenRun({ provider, model, caching: false, root, runCli: cli });
      for (const r of [on, off]) {
        assert.equal(r.state, 'COMPLETE');
        assert.equal(r.refused, 0, 'the fake refused none of the requests');
        assert.deepEqual(
          { fresh: r.reported.fresh, cached: r.reported.cached, written: r.reported.written, output: r.reported.output },
          { fresh: r.billed.fresh, cached: r.billed.cached, written: r.billed.written, output: r.billed.output },
        );
        assert.equal(Math.round(r.reported.usd * 100), Math.round(r.billed.usd * 100), `reported $${r.reported.usd}, billed $${r.billed.usd}`);
        assert.ok(Math.abs(r.reported.usd - r.billed.usd) < 1e-6);
        // The Runs view reads the same run from its store: its dollars are the bill's, to the cent.
        assert.equal(r.runsView?.short, `$${r.billed.usd.toFixed(4)}`);
        assert.equal(Number(r.runsView!.short.slice(1)).toFixed(2), r.billed.usd.toFixed(2));
        const cache = r.billed.cached + r.billed.written > 0 ? ` (${r.billed.cached.toLocaleString('en-US')} cached, ${r.billed.written.toLocaleString('en-US')} written)` : '';
        assert.ok(r.runsView!.lines[0]!.includes(`in${cache} / ${r.billed.output.toLocaleString('en-US')} out`), r.runsView!.lines[0]);
      }
      assert.ok(cacheShare(on.billed) >= 0.7, `cache share ${cacheShare(on.billed)}`);
      assert.equal(off.billed.cached, 0);
      assert.ok(on.billed.usd <= off.billed.usd / 2, `$${on.billed.usd} with caching against $${off.billed.usd} without`);
      assert.ok(Object.keys(on.reported.phases).includes('EXECUTE'));
    });
  }
});
