// What bench/dashboard.mjs needs from the sources, bundled once per bench run.
export { Store } from '../src/store/store';
export { aggregateDashboard } from '../src/app/dashboard/aggregate';
export { runUsage } from '../src/model/run-usage';
export { staticDashboardPage } from '../src/app/dashboard/page';
