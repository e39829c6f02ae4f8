/** Raw-HTTP helpers for the sandbox tests: no provider client, so these tests check the sandbox alone. */
import { request } from 'undici';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../lib/sandbox/index.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: any;
}

export interface CallOptions {
  readonly query?: Record<string, string | number>;
  readonly body?: unknown;
  /** Sent verbatim instead of `body`. */
  readonly rawBody?: string;
  /** `null` sends no Authorization header. */
  readonly token?: string | null;
}

/** Sends one request; GETs carry `{}` as body the way the interface does unless told otherwise. */
export async function call(
  sandbox: Sandbox,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  options: CallOptions = {},
): Promise<RawResponse> {
  const url = new URL(path, sandbox.url);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
  const token = options.token === undefined ? sandbox.token : options.token;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const body = options.rawBody ?? JSON.stringify(options.body ?? {});
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export const get = (sandbox: Sandbox, path: string, query?: Record<string, string | number>) =>
  call(sandbox, 'GET', path, query ? { query } : {});

export const post = (sandbox: Sandbox, path: string, body: unknown) => call(sandbox, 'POST', path, { body });

/** A fixed instant: 09:15:30.123 UTC is 10:15:30 in Lagos. */
export const FIXED_NOW = new Date('2026-11-22T09:15:30.123Z');

export function fixedClock(): () => Date {
  return () => new Date(FIXED_NOW);
}

/** A clock that advances one second per reading, so records get distinct createdAt. */
export function tickingClock(start = FIXED_NOW): () => Date {
  let t = start.getTime();
  return () => {
    t += 1000;
    return new Date(t);
  };
}

export function start(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ now: fixedClock(), ...options });
}

/** A well-formed instant payout body. */
export function payoutBody(overrides: Record<string, unknown> = {}) {
  return {
    amount: 5000,
    bankCode: '058',
    accountNumber: '0123456789',
    accountName: 'JOHN DOE',
    narration: 'payout po_1',
    metadata: { payoutId: 'po_1' },
    ...overrides,
  };
}

export function keysOf(value: object): string[] {
  return Object.keys(value).sort();
}
