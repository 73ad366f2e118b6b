import { h, replaceChildren } from '../shared/dom';
import type { HostBridge } from '../shared/bridge';
import { effortsOf, ratingsChart } from './chart';
import type { KeptComment, RatingRequest, RatingsProtocol, RatingsSnapshot, RatingsState } from './protocol';
import { runStateLabel } from '../../src/model/labels';

/**
 * The Ratings view: "How did this go?" for the last finished run without a rating (1–10
 * buttons, digits on the keyboard, an optional comment), the rolling figures, a chart per
 * effort level and the recent ratings.
 */
export class RatingsApp {
  private snapshot: RatingsSnapshot | undefined;
  private draft: RatingsState;
  private status = '';
  private statusIsError = false;
  /** What the last rating came to, shown under the run it rated (never under the next run asked about). */
  private rated: { runId: string; request: string; message: string } | undefined;
  private busy = false;
  private readonly root = h('main', { class: 'ratings' });

  constructor(private readonly bridge: HostBridge<RatingsProtocol, RatingsState>) {
    this.draft = bridge.state ?? {};
    document.body.append(this.root);
    bridge.on('snapshot', (snapshot) => {
      this.snapshot = snapshot;
      if (this.draft.runId !== snapshot.ask?.runId) this.draft = snapshot.ask ? { runId: snapshot.ask.runId } : {};
      this.render();
    });
    this.root.addEventListener('keydown', (event) => this.onKey(event));
    replaceChildren(this.root, h('p', { class: 'muted' }, 'Loading ratings…'));
    bridge.ready();
  }

  private render(): void {
    const s = this.snapshot;
    if (!s) return;
    // Until the host's next snapshot, the run just rated is still "the run to rate": not asked again.
    const ask = s.ask && s.ask.runId !== this.rated?.runId ? s.ask : undefined;
    replaceChildren(
      this.root,
      this.rated ? this.ratedSection(this.rated) : null,
      ask ? this.askSection(ask, s.modelAvailable ? undefined : (s.noModel ?? 'No model is chosen')) : h('p', { class: 'muted waiting' }, 'No finished run is waiting for a rating.'),
      // An error with no question left to show it under.
      !ask && this.status && this.statusIsError ? h('p', { class: 'status-line error', attrs: { role: 'status' } }, this.status) : null,
      this.figures(s),
      this.chart(s),
      this.recent(s),
      this.keptSection(s.kept ?? []),
    );
  }

  private keptSection(kept: readonly KeptComment[]): HTMLElement | null {
    if (kept.length === 0) return null;
    const rows = kept.slice(0, 5).map((k) =>
      h(
        'li',
        { dataset: { run: k.runId } },
        h('span', { class: 'badge' }, 'comment'),
        ' ',
        h('span', { class: 'muted' }, `${k.at.slice(0, 10)} · kept as a comment; ${k.why}`),
        h('div', { class: 'recent-comment' }, k.comment),
        h('div', { class: 'muted kept-request' }, k.request),
      ),
    );
    return h('section', { class: 'recent kept', attrs: { 'aria-label': 'Comments kept without a rating' } }, h('h2', {}, 'Kept as comments'), h('ul', {}, ...rows));
  }

  private ratedSection(rated: { request: string; message: string }): HTMLElement {
    return h(
      'section',
      { class: 'rated', attrs: { 'aria-label': 'The run just rated' } },
      h('p', { class: 'run' }, h('span', { class: 'request' }, rated.request)),
      h('p', { class: 'status-line', attrs: { role: 'status' } }, rated.message),
    );
  }

  /** `noModel`: why a comment alone is kept as a comment (undefined when a model reads comments). */
  private askSection(ask: RatingRequest, noModel: string | undefined): HTMLElement {
    const modelAvailable = noModel === undefined;
    const buttons = Array.from({ length: 10 }, (_, i) => {
      const value = i + 1;
      return h(
        'button',
        {
          class: `score${this.draft.rating === value ? ' selected' : ''}${value <= 4 ? ' low' : value >= 8 ? ' high' : ''}`,
          attrs: { type: 'button', 'aria-pressed': String(this.draft.rating === value), 'aria-label': `Rate ${value} of 10`, 'data-score': value },
          on: { click: () => this.choose(value) },
        },
        String(value),
      );
    });
    const comment = h('input', {
      class: 'comment',
      attrs: { type: 'text', placeholder: modelAvailable ? 'Comment (optional) — or just say how it went' : 'Comment (optional)', 'aria-label': 'Comment', maxlength: 2000 },
      on: {
        input: (e) => this.save({ comment: (e.target as HTMLInputElement).value }),
        keydown: (e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void this.submit();
          }
        },
      },
    });
    comment.value = this.draft.comment ?? '';
    const canSend = this.draft.rating !== undefined || (this.draft.comment ?? '').trim() !== '';
    return h(
      'section',
      { class: 'ask', attrs: { 'aria-label': 'Rate the last run' } },
      h('h2', {}, 'How did this go?'),
      h('p', { class: 'run' }, h('span', { class: 'request' }, ask.request)),
      h('p', { class: 'muted meta' }, `${ask.effort} · ${runStateLabel(ask.state)} · ${ask.criteriaPassed} of ${ask.criteriaCount} criteria passed · ${ask.finishedAt.slice(0, 16).replace('T', ' ')}`),
      ask.comment ? h('p', { class: 'muted' }, `Kept comment: “${ask.comment}”`) : null,
      h('div', { class: 'scores', attrs: { role: 'group', 'aria-label': 'Rating from 1 to 10' } }, ...buttons),
      h('div', { class: 'send' }, comment, h('button', { class: 'primary', attrs: { type: 'button', disabled: !canSend || this.busy }, on: { click: () => void this.submit() } }, 'Rate')),
      h('p', { class: `status-line${this.statusIsError ? ' error' : ''}`, attrs: { role: 'status' } }, this.status || (modelAvailable ? 'Keys 1–9 and 0 (=10) choose; Enter sends.' : `Keys 1–9 and 0 (=10) choose; Enter sends. ${noModel}, so a comment alone is kept without a rating.`)),
    );
  }

  private figures(s: RatingsSnapshot): HTMLElement {
    if (s.figures.rollingAverage === undefined) return h('p', { class: 'muted figures' }, 'No ratings yet.');
    return h(
      'p',
      { class: 'figures' },
      h('span', { class: 'average', title: 'Average of the last 10 ratings' }, s.figures.rollingAverage.toFixed(1)),
      h('span', { class: 'trend', title: 'Second half of the last 10 against the first' }, s.figures.trend),
      h('span', { class: 'muted' }, ` last ${Math.min(10, s.figures.count)} of ${s.figures.count} rating${s.figures.count === 1 ? '' : 's'}`),
    );
  }

  private chart(s: RatingsSnapshot): HTMLElement | null {
    if (s.history.length === 0) return null;
    const legend = effortsOf(s.history).map((effort) => h('span', { class: `legend effort-${effort.toLowerCase()}` }, effort));
    const figure = h('figure', { class: 'chart-box' }, h('figcaption', { class: 'muted' }, 'Ratings over time by effort level'), h('div', { class: 'legends' }, ...legend));
    figure.append(ratingsChart(s.history));
    return figure;
  }

  private recent(s: RatingsSnapshot): HTMLElement | null {
    if (s.history.length === 0) return null;
    const rows = [...s.history]
      .reverse()
      .slice(0, 8)
      .map((p) =>
        h(
          'li',
          {},
          h('span', { class: `badge ${p.rating <= 4 ? 'fail' : p.rating >= 8 ? 'pass' : 'warn'}` }, `${p.rating}/10`),
          ' ',
          h('span', { class: 'muted' }, `${p.timestamp.slice(0, 10)} · ${p.effort}${p.type === 'implicit' ? ' · from comment' : ''}`),
          p.comment ? h('div', { class: 'recent-comment' }, p.comment) : null,
        ),
      );
    return h('section', { class: 'recent', attrs: { 'aria-label': 'Recent ratings' } }, h('h2', {}, 'Recent'), h('ul', {}, ...rows));
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.snapshot?.ask || event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^[0-9]$/.test(event.key)) {
      event.preventDefault();
      this.choose(event.key === '0' ? 10 : Number(event.key));
    } else if ((event.key === 'ArrowRight' || event.key === 'ArrowLeft') && event.target instanceof HTMLElement && event.target.dataset.score) {
      event.preventDefault();
      const next = Math.min(10, Math.max(1, Number(event.target.dataset.score) + (event.key === 'ArrowRight' ? 1 : -1)));
      this.choose(next);
    } else if (event.key === 'Enter' && event.target instanceof HTMLButtonElement && event.target.dataset.score) {
      event.preventDefault();
      void this.submit();
    }
  }

  private choose(rating: number): void {
    this.save({ rating });
    this.status = '';
    this.render();
    this.root.querySelector<HTMLButtonElement>(`button[data-score="${rating}"]`)?.focus();
  }

  private save(change: RatingsState): void {
    this.draft = { ...this.draft, ...change };
    this.bridge.setState(this.draft);
    const send = this.root.querySelector<HTMLButtonElement>('.send button');
    if (send) send.disabled = this.busy || (this.draft.rating === undefined && (this.draft.comment ?? '').trim() === '');
  }

  private async submit(): Promise<void> {
    const ask = this.snapshot?.ask;
    if (!ask || this.busy) return;
    const comment = (this.draft.comment ?? '').trim();
    if (this.draft.rating === undefined && !comment) {
      this.setStatus('Choose a rating from 1 to 10, or write a comment.', true);
      return;
    }
    this.busy = true;
    this.setStatus('Saving…', false);
    try {
      const result = await this.bridge.request('rate', { runId: ask.runId, ...(this.draft.rating !== undefined ? { rating: this.draft.rating } : {}), comment });
      this.draft = {};
      this.bridge.setState(this.draft);
      this.rated = { runId: ask.runId, request: ask.request, message: result.message };
      this.status = '';
      this.statusIsError = false;
    } catch (error) {
      this.setStatus(error instanceof Error ? error.message : 'The rating could not be saved.', true);
    } finally {
      this.busy = false;
      this.render();
    }
  }

  private setStatus(text: string, isError: boolean): void {
    this.status = text;
    this.statusIsError = isError;
    const line = this.root.querySelector('.status-line');
    if (line) {
      line.textContent = text;
      line.classList.toggle('error', isError);
    }
  }
}
