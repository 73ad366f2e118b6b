export { webviewHtml, webviewOptions, webviewRoot, type WebviewPage } from './html';
export { WebviewBridge, WebviewRequestRefused, type Protocol, type RequestHandlers } from './bridge';
export { WebviewPanelHost, WebviewPanels, type OpenPanel, type PanelColumn } from './panel';
