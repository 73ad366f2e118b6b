// The PRD editor's page (bundled to media/dist/prd-editor.js and .css).
import './shared/base.css';
import './prd-editor/prd-editor.css';
import { connect } from './shared/bridge';
import { PrdEditorApp } from './prd-editor/app';
import type { PrdEditorProtocol, PrdEditorState } from './prd-editor/protocol';

new PrdEditorApp(connect<PrdEditorProtocol, PrdEditorState>());
