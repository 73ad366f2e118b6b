// The dashboard in the editor (bundled to media/dist/dashboard.js and .css).
import './shared/base.css';
import './dashboard/dashboard.css';
import { connect } from './shared/bridge';
import { DashboardApp } from './dashboard/app';
import type { DashboardProtocol, DashboardState } from './dashboard/protocol';

new DashboardApp(connect<DashboardProtocol, DashboardState>());
