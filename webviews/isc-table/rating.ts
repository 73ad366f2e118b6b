import { h, replaceChildren } from '../shared/dom';
import './rating.css';
import type { RequestResult, TableRating } from './protocol';

export interface RatingActions {
  rateRun(rating: number | undefined, comment: string): Promise<RequestResult>;
}

/**
 * "How did this go?" at the end of the ISC table once the run has ended: 1–10 and an
 * optional comment, through the same path as the sidebar's Ratings view (one rating per
 * run; rating in either place shows in both). Every string is text.
 */
export class RatingSection {
  readonly el = h('section', { class: 'run-rating', attrs: { 'aria-label': 'Rate this run' } });
  private state: TableRating | undefined;
  private chosen: number | undefined;
  private comment = '';
  private busy = false;
  private status: { text: string; error: boolean } | undefined;

  constructor(private readonly actions: RatingActions) {
    this.el.hidden = true;
    this.el.addEventListener('keydown', (e) => this.onKey(e));
  }

  update(state: TableRating): void {
    this.state = state;
    this.render();
  }

  /** Moves the keyboard to the rating (the header's "Rate run…"); false when there is nothing to rate. */
  focus(): boolean {
    const target = this.el.querySelector<HTMLElement>('button.rate-score');
    if (!target) return false;
    this.el.scrollIntoView({ block: 'nearest' });
    target.focus();
    return true;
  }

  private render(): void {
    const s = this.state;
    this.el.hidden = !s?.open;
    if (!s?.open) return replaceChildren(this.el);
    if (s.rating) {
      replaceChildren(
        this.el,
        h('h2', {}, 'How did this go?'),
        h(
          'p',
          { class: 'rated' },
          h('span', { class: `badge ${s.rating.value <= 4 ? 'fail' : s.rating.value >= 8 ? 'pass' : 'warn'}`, attrs: { 'data-rating': s.rating.value } }, `${s.rating.value}/10`),
          ' ',
          h('span', { class: 'muted' }, s.rating.type === 'implicit' ? 'read from your comment' : 'your rating'),
          s.rating.comment ? h('span', { class: 'rated-comment' }, ` “${s.rating.comment}”`) : null,
        ),
        this.statusLine('Rated once per run; it shows in the Ratings view and the status bar too.'),
      );
      return;
    }
    const buttons = Array.from({ length: 10 }, (_, i) => {
      const value = i + 1;
      return h(
        'button',
        {
          class: `rate-score${this.chosen === value ? ' selected' : ''}`,
          attrs: { type: 'button', 'aria-pressed': String(this.chosen === value), 'aria-label': `Rate ${value} of 10`, 'data-score': value, disabled: this.busy },
          on: { click: () => this.choose(value) },
        },
        String(value),
      );
    });
    const input = h('input', {
      class: 'rate-comment',
      attrs: { type: 'text', 'aria-label': 'Comment', maxlength: 2000, placeholder: s.modelAvailable ? 'Comment (optional) — or just say how it went' : 'Comment (optional)', disabled: this.busy },
      on: {
        input: (e) => {
          this.comment = (e.target as HTMLInputElement).value;
          this.syncSend();
        },
        keydown: (e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void this.submit();
          }
        },
      },
    });
    input.value = this.comment;
    replaceChildren(
      this.el,
      h('h2', {}, 'How did this go?'),
      s.kept ? h('p', { class: 'kept' }, h('span', { class: 'muted' }, `Kept as a comment; ${s.kept.why}: `), h('span', { class: 'kept-comment' }, `“${s.kept.comment}”`)) : null,
      h('div', { class: 'rate-scores', attrs: { role: 'group', 'aria-label': 'Rating from 1 to 10' } }, ...buttons),
      h('div', { class: 'rate-send' }, input, h('button', { class: 'primary', attrs: { type: 'button', 'data-action': 'send-rating', disabled: true }, on: { click: () => void this.submit() } }, 'Rate')),
      this.statusLine(s.kept ? 'Choose a number to add a rating to this run.' : s.modelAvailable ? '1–10, 10 is perfect; a comment alone is read for a rating.' : `1–10, 10 is perfect. ${s.noModel ?? 'No model is chosen'}, so a comment alone is kept as a comment.`),
    );
    this.syncSend();
  }

  private statusLine(hint: string): HTMLElement {
    return h('p', { class: `rate-status${this.status?.error ? ' error' : ''}`, attrs: { role: 'status' } }, this.status?.text ?? hint);
  }

  private syncSend(): void {
    const send = this.el.querySelector<HTMLButtonElement>('button[data-action="send-rating"]');
    if (send) send.disabled = this.busy || (this.chosen === undefined && this.comment.trim() === '');
  }

  private choose(value: number): void {
    this.chosen = value;
    this.status = undefined;
    this.render();
    this.el.querySelector<HTMLButtonElement>(`button[data-score="${value}"]`)?.focus();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey || !(e.target instanceof HTMLElement) || !e.target.dataset.score) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      this.choose(Math.min(10, Math.max(1, Number(e.target.dataset.score) + (e.key === 'ArrowRight' ? 1 : -1))));
    }
  }

  private async submit(): Promise<void> {
    if (this.busy || (this.chosen === undefined && this.comment.trim() === '')) return;
    this.busy = true;
    this.status = { text: 'Saving your rating…', error: false };
    this.render();
    try {
      const result = await this.actions.rateRun(this.chosen, this.comment);
      this.status = { text: result.message, error: !result.ok };
      if (result.ok) {
        this.chosen = undefined;
        this.comment = '';
      }
    } catch (error) {
      this.status = { text: error instanceof Error ? error.message : String(error), error: true };
    } finally {
      this.busy = false;
      this.render();
    }
  }
}
