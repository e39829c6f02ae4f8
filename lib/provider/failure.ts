import type { HttpMethod } from './errors.js';

/** How a request failed on the network, as told by the transport. */
export const NetworkErrorKind = {
  ConnectRefused: 'connect-refused',
  ConnectTimeout: 'connect-timeout',
  Dns: 'dns',
  Reset: 'reset',
  Timeout: 'timeout',
  Aborted: 'aborted',
  Other: 'other',
} as const;
export type NetworkErrorKind = (typeof NetworkErrorKind)[keyof typeof NetworkErrorKind];

/**
 * `before-send`: no byte of the request can have reached the provider (the connection was never made).
 * `after-send`: some bytes may have been written, so the provider may have acted.
 */
export const Phase = { BeforeSend: 'before-send', AfterSend: 'after-send' } as const;
export type Phase = (typeof Phase)[keyof typeof Phase];

/** One failed attempt, as plain data: the input of classification and retry decisions. */
export type Failure =
  | { type: 'network'; kind: NetworkErrorKind; phase: Phase; detail?: string }
  | { type: 'http'; status: number; retryAfterMs?: number; providerMessage?: string };

/** True for the methods that can move money: never repeated once a byte may have been sent. */
export function isMutating(method: HttpMethod): boolean {
  return method !== 'GET';
}
