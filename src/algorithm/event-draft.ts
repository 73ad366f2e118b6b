import type { RunEvent } from '../model';

/** An event as a phase records it: the run, its place in the sequence and its time are the recorder's to add. */
export type EventDraft = Omit<RunEvent, 'runId' | 'seq' | 'at' | 'inputTokens' | 'outputTokens' | 'costUsd'> & Partial<Pick<RunEvent, 'inputTokens' | 'outputTokens' | 'costUsd'>>;
