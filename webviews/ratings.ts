// The sidebar's Ratings view (bundled to media/dist/ratings.js and .css).
import './shared/base.css';
import './ratings/ratings.css';
import { connect } from './shared/bridge';
import { RatingsApp } from './ratings/app';
import type { RatingsProtocol, RatingsState } from './ratings/protocol';

new RatingsApp(connect<RatingsProtocol, RatingsState>());
