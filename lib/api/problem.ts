import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  CorrectionJobNotEnqueuedError,
  CorrectionJobsNotConfiguredError,
} from '../bulk-corrections/index.js';
import { ApprovalForbiddenError, PayoutsPausedError } from '../controls/index.js';
import { DirectoryError, OperatorChangeForbiddenError } from '../operators/index.js';
import { RunWarningsError } from '../payout-runs/index.js';
import { ProviderLookupFailedError, ResolutionMismatchError } from '../payouts/index.js';
import { ProviderError, ProviderRejectedError, ProviderUnavailableError } from '../provider/index.js';
import { RefundRefusedError } from '../refunds/index.js';
import { SettlementNotConfiguredError } from '../settlement/index.js';
import {
  ConcurrentModificationError,
  IdempotencyConflictError,
  InvalidCursorError,
  InvalidTransitionError,
  NotFoundError,
  ValidationError,
} from '../shared/errors.js';
import { clipText, FIELD_MAXIMA } from '../shared/field-limits.js';
import type { Logger } from '../shared/logger.js';
import { ApiError } from './errors.js';
import { issueOf } from './presenters.js';
import { type ProblemSlug, type ProblemStatus, problemType } from './problem-types.js';

/** The body of every error answer (RFC 9457 `application/problem+json`). */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** Present on validation problems: one entry per invalid field. */
  readonly errors?: readonly { path: string; message: string }[];
}

export function problemResponse(problem: Problem): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: problem.status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' },
    body: JSON.stringify(problem),
  };
}

function problem<S extends ProblemSlug>(
  status: ProblemStatus<S>,
  slug: S,
  title: string,
  detail: string,
  errors?: Problem['errors'],
): Problem {
  // Clipped to the maxima of the problem schema, so no request, however malformed, answers an unbounded body.
  const { name, text, issues } = FIELD_MAXIMA;
  const shown = errors?.slice(0, issues).map(issueOf);
  return {
    type: problemType(slug),
    title: clipText(title, name),
    status,
    detail: clipText(detail, text),
    ...(shown && { errors: shown }),
  };
}

/**
 * Maps any error to a problem. Expected errors keep their message (written for callers); anything
 * unexpected becomes a 500 that says nothing about internals, and is logged in full.
 */
export function problemFor(error: unknown, logger: Logger): Problem {
  if (error instanceof ApiError) {
    return problem(
      error.status,
      error.slug,
      error.title,
      error.message,
      error.issues.length > 0 ? error.issues : undefined,
    );
  }
  if (error instanceof RunWarningsError) {
    return problem(
      409,
      'duplicates-unacknowledged',
      'The run has duplicates to acknowledge',
      error.message,
      error.warnings.map((warning) => ({
        path: warning.kind === 'duplicate_line' ? `rows ${warning.rows.join(', ')}` : `run ${warning.runId}`,
        message: warning.message,
      })),
    );
  }
  if (error instanceof ValidationError) {
    return problem(400, 'validation', 'The request is invalid', error.message, error.issues);
  }
  if (error instanceof InvalidCursorError) {
    return problem(400, 'validation', 'The request is invalid', `cursor: ${error.message}`, [
      { path: 'cursor', message: error.message },
    ]);
  }
  if (error instanceof IdempotencyConflictError) {
    return problem(
      409,
      'idempotency-conflict',
      'Idempotency key reused with a different request',
      error.message,
    );
  }
  if (error instanceof RefundRefusedError) {
    return problem(422, 'refund-refused', 'The refund is not allowed', error.message, [
      { path: error.path, message: error.reason },
    ]);
  }
  if (error instanceof SettlementNotConfiguredError) {
    return problem(503, 'not-configured', 'Instant settlement is not configured', error.message);
  }
  if (error instanceof CorrectionJobsNotConfiguredError) {
    return problem(503, 'not-configured', 'Correction jobs are not configured', error.message);
  }
  if (error instanceof CorrectionJobNotEnqueuedError) {
    return problem(
      503,
      'not-enqueued',
      'The job is stored but not all of it reached the workers',
      error.message,
    );
  }
  if (error instanceof NotFoundError) {
    return problem(404, 'not-found', 'Not found', error.message);
  }
  if (error instanceof InvalidTransitionError) {
    return problem(
      409,
      'invalid-transition',
      `The ${error.resource} is not in a state that allows this`,
      error.message,
    );
  }
  if (error instanceof ConcurrentModificationError) {
    return problem(
      409,
      'concurrent-modification',
      `The ${error.resource} changed meanwhile; try again`,
      error.message,
    );
  }
  if (error instanceof PayoutsPausedError) {
    return problem(409, 'payouts-paused', 'Payouts are paused', error.message);
  }
  if (error instanceof ResolutionMismatchError) {
    return problem(
      409,
      'resolution-mismatch',
      'The provider record does not prove this payout was paid',
      error.message,
    );
  }
  if (error instanceof ProviderLookupFailedError) {
    logger.warn('provider look-up failed', { code: error.code });
    return problem(503, 'provider-unavailable', 'The provider is unavailable', 'try again later');
  }
  if (error instanceof OperatorChangeForbiddenError) {
    return problem(403, 'operator-change-forbidden', 'Another admin must make this change', error.message);
  }
  if (error instanceof DirectoryError) {
    logger.warn('user pool call failed', { operation: error.operation, type: error.type });
    return problem(502, 'user-pool-error', 'The user pool refused the call', error.message);
  }
  if (error instanceof ApprovalForbiddenError) {
    return problem(403, 'approval-forbidden', 'Approval is not allowed for this principal', error.message);
  }
  if (error instanceof ProviderUnavailableError) {
    logger.warn('provider unavailable', { code: error.code, reason: error.reason });
    return problem(503, 'provider-unavailable', 'The provider is unavailable', 'try again later');
  }
  if (error instanceof ProviderRejectedError) {
    logger.warn('provider rejected a read', { status: error.status });
    return problem(
      502,
      'provider-error',
      'The provider refused the request',
      `provider answered ${error.status}`,
    );
  }
  if (error instanceof ProviderError) {
    logger.warn('provider call failed', { code: error.code });
    return problem(502, 'provider-error', 'The provider answered unexpectedly', error.code);
  }
  logger.error('unexpected error in the ops API', {
    error:
      error instanceof Error
        ? { name: error.name, message: error.message, stack: error.stack }
        : String(error),
  });
  return problem(500, 'internal', 'Internal error', 'the request could not be completed; it has been logged');
}
