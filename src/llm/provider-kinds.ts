/** The kinds of language model provider: OpenAI and compatible servers, Anthropic, VS Code's `vscode.lm`, the scripted replayer. */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'vscode-lm', 'scripted'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
