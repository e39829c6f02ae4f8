/** What every route handler receives and returns. */
import type { FeeTable } from './fees.js';
import type { Reply, SandboxRequest } from './http.js';
import type { SandboxState } from './state.js';

export interface RouteContext {
  readonly state: SandboxState;
  readonly fees: FeeTable;
  readonly now: () => Date;
  readonly pin: string;
  /** Wallet transactions younger than this are not listed yet (see SandboxServer.listingLagMs). */
  readonly listingLagMs?: number;
}

/** Handlers are synchronous: a whole operation validates and commits in one turn of the event loop. */
export type Handler = (req: SandboxRequest, ctx: RouteContext) => Reply;

export interface Route {
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
  readonly handler: Handler;
}
