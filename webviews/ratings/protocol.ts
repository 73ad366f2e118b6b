import type { Protocol } from '../shared/protocol';

/** One rating on the chart and in the recent list. */
export interface RatingPoint {
  timestamp: string;
  rating: number;
  type: 'explicit' | 'implicit';
  /** The rated run's effort level, or "imported" for a rating with no run in this store. */
  effort: string;
  runId?: string;
  comment?: string;
}

/** The finished run "How did this go?" asks about. */
export interface RatingRequest {
  runId: string;
  request: string;
  effort: string;
  state: string;
  finishedAt: string;
  criteriaPassed: number;
  criteriaCount: number;
  /** A comment already kept for it (without a rating). */
  comment?: string;
}

export interface RatingsSnapshot {
  ask?: RatingRequest;
  figures: { count: number; rollingAverage?: number; trend: '↑' | '↓' | '→' };
  /** Oldest first, at most the last 60. */
  history: RatingPoint[];
  /** Whether a model will read a rating from a comment without a number. */
  modelAvailable: boolean;
  /** When no model reads comments, why (e.g. the selected model is a scripted demo). */
  noModel?: string;
  /** Comments kept without a rating on recent runs, newest first (those runs are not asked again). */
  kept?: KeptComment[];
}

/** A comment kept without a rating, and why no rating was read from it. */
export interface KeptComment {
  runId: string;
  request: string;
  at: string;
  comment: string;
  why: string;
}

export interface RatingsProtocol extends Protocol {
  requests: {
    rate: { params: { runId: string; rating?: number; comment: string }; result: { rated: boolean; message: string } };
  };
  events: {
    snapshot: RatingsSnapshot;
  };
}

/** What the view keeps across hide/show and reloads: the unsent answer. */
export interface RatingsState {
  runId?: string;
  rating?: number;
  comment?: string;
}
