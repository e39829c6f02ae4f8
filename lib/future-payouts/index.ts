/** The future-payouts room's front door: what other rooms may use of it. */
export { FUTURE_PAGE_MAX, type FutureMovement, FutureSource, futureMoneyMovement } from './future-payouts.js';
