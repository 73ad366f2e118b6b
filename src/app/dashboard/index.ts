export { aggregateDashboard, NO_PRD, type DashboardOptions, type DashboardStore } from './aggregate';
export * from './data';
export { count, dollars, duration, median, passRate, roundUsd } from './figures';
export { jsonForHtml, staticDashboardPage, type StaticPageInput } from './page';
