import type { DashboardData } from '../../src/app/dashboard/data';
import type { Protocol } from '../shared/protocol';

export type { DashboardData };

/** What the view shows, read back from its DOM for the editor's tests. */
export interface ShownDashboard {
  totals: Record<string, string>;
  charts: string[];
  /** Each table's caption with its rows, cells as text. */
  tables: { caption: string; rows: string[][] }[];
  empty: boolean;
}

export interface DashboardProtocol extends Protocol {
  requests: {
    /** Read the store again. */
    refresh: { params: Record<string, never>; result: null };
    /** The answer to a `probe` event. */
    shown: { params: ShownDashboard; result: null };
  };
  events: {
    snapshot: DashboardData;
    probe: Record<string, never>;
  };
}

/** Nothing to keep but which charts show as tables. */
export interface DashboardState {
  tables?: string[];
}
