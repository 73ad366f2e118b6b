import type { CatalogueEntry } from './catalogue';
import type { CacheTtl } from './types';

/**
 * Prompt caching, as the providers document it. Each agent turn re-sends the whole
 * conversation; a provider that has seen the same prefix before reads it from its cache at a
 * tenth of the input price. What keeps the prefix the same: tools sorted by name, a system
 * prompt with nothing that changes per turn in it, and the conversation only ever appended to.
 *
 * Anthropic (https://platform.claude.com/docs/en/build-with-claude/prompt-caching): caching is
 * asked for with `cache_control` breakpoints, at most four a request, each caching the prefix
 * (tools, then system, then messages) up to and including its block; a prefix shorter than the
 * model's minimum (1,024 tokens; 2,048 on Haiku models) is not cached. The time to live is
 * 5 minutes (writes at 1.25 x input) or 1 hour (2 x input); a read refreshes it.
 *
 * OpenAI (https://developers.openai.com/api/docs/guides/prompt-caching): caching is automatic
 * from 1,024 tokens, hits grow in 128-token steps, and `prompt_cache_key` joins the prefix hash
 * that routes a request to a machine, so requests of one run and role reach the same cache.
 */

/** Anthropic refuses a request with more `cache_control` blocks than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The shortest prefix a model caches (Anthropic's prompt-caching page, "Cache limitations"). */
export function minCacheableTokens(entry: Pick<CatalogueEntry, 'family' | 'name'> | undefined): number {
  const family = `${entry?.family ?? ''} ${entry?.name ?? ''}`.toLowerCase();
  return family.includes('haiku') ? 2048 : 1024;
}

/** Tokens of a prefix as the request builders estimate them (about four characters a token). */
export function prefixTokens(parts: readonly unknown[]): number {
  return Math.ceil(parts.reduce<number>((n, p) => n + (typeof p === 'string' ? p.length : JSON.stringify(p).length), 0) / 4);
}

/** The default time to live holds while calls of a run come less than this far apart. */
const FIVE_MINUTES_MS = 5 * 60_000;

/**
 * The time to live for a run's pace: 5 minutes while its calls come closer together than that
 * (each read refreshes the entry, and a 5-minute write costs 1.25 x input against 2 x for an
 * hour); 1 hour once a gap between two calls has outlasted 5 minutes (a person taking their
 * time over an approval, a long command), where a 5-minute entry would have to be written again.
 */
export class CachePace {
  private last: number | undefined;
  private slow = false;

  constructor(private readonly now: () => number = Date.now) {}

  /** Notes a call and answers the time to live it should ask for. */
  next(): CacheTtl {
    const at = this.now();
    if (this.last !== undefined && at - this.last >= FIVE_MINUTES_MS) this.slow = true;
    this.last = at;
    return this.slow ? '1h' : '5m';
  }
}
