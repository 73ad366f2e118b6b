// A loop's artifacts × criteria matrix (bundled to media/dist/loop-matrix.js and .css).
import './shared/base.css';
import './loop-matrix/loop-matrix.css';
import { connect } from './shared/bridge';
import { LoopMatrixApp } from './loop-matrix/app';
import type { LoopMatrixProtocol, LoopMatrixState } from './loop-matrix/protocol';

new LoopMatrixApp(connect<LoopMatrixProtocol, LoopMatrixState>());
