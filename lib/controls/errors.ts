import { errorKind } from '../shared/errors.js';

/** What the controls refuse: a second person who is the first, a paused house, a cap that would be passed. */

/** The approver is the requester (four-eyes rule). */
export class ApprovalForbiddenError extends /* @__PURE__ */ errorKind(
  'ApprovalForbiddenError',
  'APPROVAL_FORBIDDEN',
) {}

/** Payouts are paused; nothing is submitted until ops resume. */
export class PayoutsPausedError extends /* @__PURE__ */ errorKind('PayoutsPausedError', 'PAYOUTS_PAUSED') {}

/** Claiming the payout would take its source wallet past the daily cap. */
export class DailyCapExceededError extends /* @__PURE__ */ errorKind(
  'DailyCapExceededError',
  'DAILY_CAP_EXCEEDED',
) {}
