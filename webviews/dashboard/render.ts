import type { DashboardData, DayFigures } from '../../src/app/dashboard/data';
import { count, dollars, duration, passRate } from '../../src/app/dashboard/figures';
import { runStateLabel } from '../../src/model/labels';
import { h } from '../shared/dom';
import { horizontalBars, lines, stackedBars, type Series } from './charts';
import { chartFigure, tablePanel } from './figure';

/**
 * The whole dashboard from its figures: the same function draws the editor's webview and the
 * static page `ideal-state dashboard` writes. Every string from the store is a text node.
 */
export function renderDashboard(data: DashboardData, where: { source: string; actions?: HTMLElement[] }): HTMLElement {
  const head = h(
    'header',
    { class: 'dash-header' },
    h('div', { class: 'title-row' }, h('h1', {}, 'Ideal State dashboard'), h('div', { class: 'actions' }, ...(where.actions ?? []))),
    h('p', { class: 'muted subtitle' }, `${where.source} · figures of ${data.generatedAt.slice(0, 16).replace('T', ' ')} UTC`),
  );
  if (data.empty) {
    return h(
      'main',
      { class: 'dashboard' },
      head,
      h(
        'section',
        { class: 'panel empty-state', attrs: { role: 'status' } },
        h('h2', {}, 'No runs in this store yet'),
        h('p', {}, 'The dashboard fills in as work is recorded: start a run ("Ideal State: Start Run" or `ideal-state run`), verify a PRD, let the done gate check an agent, or run a loop. Ratings and gate verdicts show here too.'),
      ),
    );
  }
  return h(
    'main',
    { class: 'dashboard' },
    head,
    totals(data),
    h('div', { class: 'panels' }, ...overTime(data.days), gateHosts(data), failing(data), ...loops(data)),
    tampered(data),
    prds(data),
    recentRuns(data),
  );
}

function totals(data: DashboardData): HTMLElement {
  const t = data.totals;
  const rate = passRate(t.criteriaPassed, t.criteriaTotal);
  const cards: [string, string, string][] = [
    ['runs', 'Runs', count(t.runs)],
    ['complete', 'COMPLETE', `${count(t.complete)} of ${count(t.finished)} finished`],
    ['pass-rate', 'Criteria passing', rate === undefined ? '—' : `${rate}% (${count(t.criteriaPassed)}/${count(t.criteriaTotal)})`],
    ['time', 'Median time to COMPLETE', t.medianCompleteMs === undefined ? '—' : duration(t.medianCompleteMs)],
    ['tokens', 'Tokens in / out', `${count(t.inputTokens)} / ${count(t.outputTokens)}`],
    ['cost', 'Cost', dollars(t.usd)],
    ['rating', 'Average rating', t.averageRating === undefined ? '—' : `${t.averageRating}/10 (${count(t.ratings)})`],
    ['gate', 'Gate stops', count(t.gateStops)],
    ['tampered', 'TAMPERED', count(t.tampered)],
  ];
  return h('section', { class: 'totals', attrs: { 'aria-label': 'Totals' } }, ...cards.map(([key, label, value]) => h('div', { class: 'card', dataset: { total: key } }, h('div', { class: 'muted card-label' }, label), h('div', { class: 'card-value' }, value))));
}

const STATE_SERIES: readonly { name: string; cls: string; states: readonly string[] }[] = [
  { name: 'COMPLETE', cls: 's-pass', states: ['COMPLETE'] },
  { name: 'FAILED', cls: 's-fail', states: ['FAILED'] },
  { name: 'other end', cls: 's-warn', states: ['BUDGET_EXHAUSTED', 'BLOCKED', 'CANCELLED'] },
  { name: 'under way', cls: 's-info', states: ['PENDING', 'RUNNING', 'NEEDS_APPROVAL'] },
];

function overTime(days: readonly DayFigures[]): HTMLElement[] {
  if (days.length === 0) return [];
  const labels = days.map((d) => d.day);
  const stateSeries: Series[] = STATE_SERIES.map((s) => ({ name: s.name, cls: s.cls, values: days.map((d) => s.states.reduce((n, st) => n + (d.states[st] ?? 0), 0)) }));
  const rates = days.map((d) => passRate(d.criteriaPassed, d.criteriaTotal));
  const minutes = days.map((d) => (d.medianCompleteMs === undefined ? undefined : d.medianCompleteMs / 60_000));
  return [
    chartFigure({
      key: 'runs',
      title: 'Runs and their end states',
      chart: stackedBars({ labels, series: stateSeries, format: (v) => count(Math.round(v)), integer: true }),
      legend: stateSeries,
      table: { caption: 'Runs per day by state', columns: ['Day', 'Runs', ...STATE_SERIES.map((s) => s.name)], numeric: [1, 2, 3, 4, 5], rows: days.map((d, i) => [d.day, count(d.runs), ...stateSeries.map((s) => count(s.values[i] ?? 0))]) },
    }),
    chartFigure({
      key: 'pass-rate',
      title: 'Criteria pass rate',
      note: 'Of the criteria of each day’s runs (their latest criteria version).',
      chart: lines({ labels, series: [{ name: 'passing', cls: 's-pass', values: rates }], format: (v) => `${Math.round(v)}%`, min: 0, max: 100 }),
      table: { caption: 'Criteria passing per day', columns: ['Day', 'Passing', 'Criteria', 'Rate'], numeric: [1, 2, 3], rows: days.map((d, i) => [d.day, count(d.criteriaPassed), count(d.criteriaTotal), rates[i] === undefined ? '—' : `${rates[i]}%`]) },
    }),
    chartFigure({
      key: 'time',
      title: 'Time to COMPLETE',
      note: 'Median wall time from start to COMPLETE of the day’s COMPLETE runs.',
      chart: lines({ labels, series: [{ name: 'median', cls: 's-info', values: minutes }], format: (v) => `${v < 10 ? v.toFixed(1) : Math.round(v)} m` }),
      table: { caption: 'Median time to COMPLETE per day', columns: ['Day', 'COMPLETE runs', 'Median'], numeric: [1, 2], rows: days.map((d) => [d.day, count(d.complete), d.medianCompleteMs === undefined ? '—' : duration(d.medianCompleteMs)]) },
    }),
    chartFigure({
      key: 'cost',
      title: 'Tokens and cost',
      chart: stackedBars({ labels, series: [{ name: 'cost', cls: 's-info', values: days.map((d) => d.usd) }], format: (v) => dollars(v) }),
      table: { caption: 'Tokens and cost per day', columns: ['Day', 'Runs', 'Tokens in', 'Tokens out', 'Cost', 'Cost per run'], numeric: [1, 2, 3, 4, 5], rows: days.map((d) => [d.day, count(d.runs), count(d.inputTokens), count(d.outputTokens), dollars(d.usd), d.runs > 0 ? dollars(d.usd / d.runs) : '—']) },
    }),
    chartFigure({
      key: 'ratings',
      title: 'Ratings',
      chart: lines({ labels, series: [{ name: 'average rating', cls: 's-warn', values: days.map((d) => d.averageRating) }], format: (v) => v.toFixed(0), min: 1, max: 10 }),
      table: { caption: 'Ratings per day', columns: ['Day', 'Ratings', 'Average'], numeric: [1, 2], rows: days.filter((d) => d.ratings > 0).map((d) => [d.day, count(d.ratings), `${d.averageRating}/10`]) },
    }),
  ];
}

const VERDICT_SERIES = [
  { name: 'passed', cls: 's-pass', key: 'passed' },
  { name: 'blocked', cls: 's-warn', key: 'blocked' },
  { name: 'let go unmet', cls: 's-fail', key: 'released' },
] as const;

function gateHosts(data: DashboardData): HTMLElement | null {
  if (data.hosts.length === 0) return null;
  const series = VERDICT_SERIES.map((v) => ({ name: v.name, cls: v.cls, values: data.hosts.map((host) => host[v.key]) }));
  return chartFigure({
    key: 'gate',
    title: 'Gate verdicts per host',
    note: 'Agent stops the done gate let through, kept working, or let go with criteria unmet.',
    chart: horizontalBars(data.hosts.map((x) => x.host), series, (v) => count(v)),
    legend: series,
    table: { caption: 'Gate verdicts per agent host', columns: ['Host', 'Stops', 'Passed', 'Blocked', 'Let go unmet'], numeric: [1, 2, 3, 4], rows: data.hosts.map((x) => [x.host, count(x.stops), count(x.passed), count(x.blocked), count(x.released)]) },
  });
}

function failing(data: DashboardData): HTMLElement | null {
  if (data.failing.length === 0) return null;
  return chartFigure({
    key: 'failing',
    title: 'Most often failing criteria',
    note: 'Runs whose latest verdict on the criterion was FAIL or PARTIAL.',
    chart: horizontalBars(data.failing.map((f) => `${f.id} ${f.text}`), [{ name: 'failed', cls: 's-fail', values: data.failing.map((f) => f.failed) }], (v) => count(v)),
    table: { caption: 'Most often failing criteria', columns: ['Criterion', 'Text', 'PRD', 'Failed', 'Verified'], numeric: [3, 4], rows: data.failing.map((f) => [f.id, f.text, f.prd ?? '—', count(f.failed), count(f.verified)]) },
  });
}

function loops(data: DashboardData): HTMLElement[] {
  return data.loops.slice(0, 6).map((loop) =>
    chartFigure({
      key: `loop-${loop.id}`,
      title: `Loop ${loop.title}`,
      note: `${runStateLabel(loop.state)} · ${loop.passing}/${loop.total} artifacts passing · ${loop.id}`,
      chart: lines({ labels: loop.snapshots.map((s) => `iteration ${s.iteration}`), series: [{ name: 'passing', cls: 's-pass', values: loop.snapshots.map((s) => s.passing) }], format: (v) => count(Math.round(v)), min: 0, max: Math.max(1, loop.total), integer: true }),
      table: { caption: `Snapshots of loop ${loop.id}`, columns: ['Iteration', 'At', 'Passing', 'Of', 'Change'], numeric: [2, 3, 4], rows: loop.snapshots.map((s) => [String(s.iteration), s.at.slice(0, 16).replace('T', ' '), count(s.passing), count(s.total), s.delta > 0 ? `+${s.delta}` : String(s.delta)]) },
    }),
  );
}

function tampered(data: DashboardData): HTMLElement {
  return tablePanel(
    'tampered',
    'TAMPERED events',
    { caption: 'Stops at which a locked criterion or input had changed without approval', columns: ['At', 'Host', 'PRD', 'What changed'], rows: data.tampered.map((t) => [t.at.slice(0, 16).replace('T', ' '), t.host, t.prd, t.what.join(', ')]) },
    'No TAMPERED criterion recorded: nothing locked was changed without a person’s approval.',
  );
}

function prds(data: DashboardData): HTMLElement {
  return tablePanel(
    'prds',
    'Per PRD',
    {
      caption: 'Figures per PRD',
      columns: ['PRD', 'Runs', 'COMPLETE', 'Last state', 'Passing', 'Median to COMPLETE', 'Tokens', 'Cost', 'Rating', 'Gate blocks', 'Let go unmet', 'TAMPERED'],
      numeric: [1, 2, 4, 5, 6, 7, 8, 9, 10, 11],
      rows: data.prds.map((p) => {
        const rate = passRate(p.criteriaPassed, p.criteriaTotal);
        return [p.prd, count(p.runs), count(p.complete), runStateLabel(p.lastState), rate === undefined ? '—' : `${rate}%`, p.medianCompleteMs === undefined ? '—' : duration(p.medianCompleteMs), count(p.inputTokens + p.outputTokens), dollars(p.usd), p.averageRating === undefined ? '—' : `${p.averageRating}/10`, count(p.gateBlocked), count(p.gateReleased), count(p.tampered)];
      }),
    },
    'No PRD yet.',
  );
}

function recentRuns(data: DashboardData): HTMLElement {
  return tablePanel(
    'recent',
    'Recent runs',
    {
      caption: 'The most recent runs',
      columns: ['Run', 'Request', 'PRD', 'State', 'Criteria', 'Time to COMPLETE', 'Tokens in / out', 'Cost', 'Rating'],
      numeric: [4, 5, 6, 7, 8],
      rows: data.recentRuns.map((r) => [r.id, r.request, r.prd ?? '—', runStateLabel(r.state), r.criteriaTotal > 0 ? `${r.criteriaPassed}/${r.criteriaTotal}` : '—', r.completeMs === undefined ? '—' : duration(r.completeMs), `${count(r.inputTokens)} / ${count(r.outputTokens)}`, dollars(r.usd), r.rating === undefined ? '—' : `${r.rating}/10`]),
    },
    'No run yet.',
  );
}
