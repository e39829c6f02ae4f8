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
  if (failure.phase === Phase.BeforeSend) {
    return new ProviderUnavailableError(unavailableReasonOf(failure.kind), { ...context, ...detail });
  }
  if (isMutating(method)) {
    return new ProviderOutcomeUnknownError(outcomeReasonOf(failure.kind), { ...context, ...detail });
  }
  return new ProviderUnavailableError(unavailableReasonOf(failure.kind), { ...context, ...detail });
}

function unavailableReasonOf(kind: NetworkErrorKind): UnavailableReason {
  switch (kind) {
    case NetworkErrorKind.ConnectRefused:
      return UnavailableReason.ConnectRefused;
    case NetworkErrorKind.ConnectTimeout:
      return UnavailableReason.ConnectTimeout;
    case NetworkErrorKind.Timeout:
      return UnavailableReason.Timeout;
    case NetworkErrorKind.Aborted:
      return UnavailableReason.Aborted;
    default:
      return UnavailableReason.Network;
  }
}

function outcomeReasonOf(kind: NetworkErrorKind): OutcomeUnknownReason {
  switch (kind) {
    case NetworkErrorKind.Timeout:
      return OutcomeUnknownReason.Timeout;
    case NetworkErrorKind.Reset:
      return OutcomeUnknownReason.Reset;
    case NetworkErrorKind.Aborted:
      return OutcomeUnknownReason.Aborted;
    default:
      return OutcomeUnknownReason.Network;
  }
}
