import type { SendWindow } from '../shared/send-window.js';

/**
 * How the ops API bounds a request (docs/api.md, "Deadlines"). API Gateway gives up after 30 s and the Lambda
 * after 29 s; the API answers before either, with what it knows.
 */
export interface ApiDeadlines {
  /** Kept between the request's deadline and the invocation's end: room to answer, and the limits' margin. */
  readonly marginMs: number;
  /** The invocation's time without a Lambda context (npm start, tests): the Lambda's own timeout. */
  readonly localBudgetMs: number;
  /** A payout is sent inline only when at least this is left before the request's deadline. */
  readonly sendBeforeDeadlineMs: number;
  /** An inline send's whole provider call, retries included. */
  readonly sendDeadlineMs: number;
}

/**
 * The production figures, checked against the `api` function's timeout by test/infra/handler-limits.test.ts:
 * the deadline (timeout - margin = 24 s) x 1.2 fits 29 s, and an inline send (10 s) x 1.2 fits the 12 s it
 * must have left when it starts, which leaves its recording 2 s before the deadline.
 */
export const API_DEADLINES: ApiDeadlines = {
  marginMs: 5_000,
  localBudgetMs: 29_000,
  sendBeforeDeadlineMs: 12_000,
  sendDeadlineMs: 10_000,
};

/** One request's deadline: when the API answers whatever happens, and the window an inline send must fit. */
export interface RequestDeadline {
  /** Epoch ms. */
  readonly at: number;
  readonly sendWindow: SendWindow;
}
