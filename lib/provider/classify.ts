import {
  type HttpMethod,
  OutcomeUnknownReason,
  type ProviderError,
  type ProviderErrorOptions,
  ProviderOutcomeUnknownError,
  ProviderRejectedError,
  ProviderUnavailableError,
  UnavailableReason,
} from './errors.js';
import { type Failure, isMutating, NetworkErrorKind, Phase } from './failure.js';

/** The reason of a network failure by its kind; every other kind is `network`. */
const UNAVAILABLE_REASONS: Partial<Record<NetworkErrorKind, UnavailableReason>> = {
  [NetworkErrorKind.ConnectRefused]: UnavailableReason.ConnectRefused,
  [NetworkErrorKind.ConnectTimeout]: UnavailableReason.ConnectTimeout,
  [NetworkErrorKind.Timeout]: UnavailableReason.Timeout,
  [NetworkErrorKind.Aborted]: UnavailableReason.Aborted,
};
const OUTCOME_REASONS: Partial<Record<NetworkErrorKind, OutcomeUnknownReason>> = {
  [NetworkErrorKind.Timeout]: OutcomeUnknownReason.Timeout,
  [NetworkErrorKind.Reset]: OutcomeUnknownReason.Reset,
  [NetworkErrorKind.Aborted]: OutcomeUnknownReason.Aborted,
};

/**
 * The one place that turns a failed attempt into an error class. Pure: (method, failure) -> error.
 *
 * - 4xx except 408/429: rejected, nothing changed.
 * - 429: unavailable (rate limited), nothing changed, with `retryAfterMs`.
 * - network failure before any byte was sent: unavailable, whatever the method.
 * - 5xx, 408, timeouts, resets after sending: unavailable for a GET (a read changes nothing),
 *   outcome unknown for POST/PATCH (the provider may have acted).
 */
export function classifyFailure(
  method: HttpMethod,
  failure: Failure,
  options: ProviderErrorOptions = {},
): ProviderError {
  const context = { ...options, method };
  if (failure.type === 'http') {
    const { status } = failure;
    if (status === 429) {
      return new ProviderUnavailableError(UnavailableReason.RateLimited, {
        ...context,
        status,
        ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
      });
    }
    if (status >= 400 && status < 500 && status !== 408) {
      return new ProviderRejectedError(status, failure.providerMessage, context);
    }
    const reason = status === 408 ? 'timeout' : 'server-error';
    if (isMutating(method)) return new ProviderOutcomeUnknownError(reason, { ...context, status });
    return new ProviderUnavailableError(reason, { ...context, status });
  }
  const detail = failure.detail === undefined ? {} : { detail: failure.detail };
  // Before sending nothing was done, whatever the method; after it, only a read is known to have changed nothing.
  if (failure.phase !== Phase.BeforeSend && isMutating(method)) {
    return new ProviderOutcomeUnknownError(OUTCOME_REASONS[failure.kind] ?? OutcomeUnknownReason.Network, {
      ...context,
      ...detail,
    });
  }
  return new ProviderUnavailableError(UNAVAILABLE_REASONS[failure.kind] ?? UnavailableReason.Network, {
    ...context,
    ...detail,
  });
}
