// The ISC table panel (bundled to media/dist/isc-table.js and .css).
import './shared/base.css';
import './isc-table/isc-table.css';
import { connect } from './shared/bridge';
import { IscTableApp } from './isc-table/app';
import type { IscTableProtocol, IscTableState } from './isc-table/protocol';

new IscTableApp(connect<IscTableProtocol, IscTableState>());
