import type { Session } from './session.js';

/** An answer the API refused: its problem (RFC 9457), with the fields it names. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: readonly { path: string; message: string }[],
  ) {
    super(detail || title);
  }

  /** What a person should read: a stale view says so and what to do. */
  describe(): string {
    if (this.status === 409)
      return `${this.detail || this.title}. This changed since you opened it: reload to see where it stands.`;
    if (this.status === 403) return `Not yours to do: ${this.detail || this.title}`;
    if (this.status === 401) return 'Your session has ended: sign in again.';
    return this.detail || this.title;
  }
}

export interface CallOptions {
  readonly query?: Record<string, string | undefined>;
  readonly json?: unknown;
  readonly csv?: string;
  readonly idempotencyKey?: string;
}

/**
 * Every call the console makes, to the same API the CLI uses, so the API's rules are the console's rules.
 * A 401 ends the session (`onSignedOut`).
 */
export class ConsoleApi {
  constructor(
    private readonly base: string,
    private readonly session: Session,
    private readonly onSignedOut: () => void,
  ) {}

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<T> {
    const response = await this.send(method, path, options);
    if (response.status === 401) this.onSignedOut();
    const text = await response.text();
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!response.ok) {
      throw new ApiProblem(
        response.status,
        String(body.title ?? response.statusText),
        String(body.detail ?? ''),
        Array.isArray(body.errors) ? (body.errors as { path: string; message: string }[]) : [],
      );
    }
    return body as T;
  }

  /** A file the API answers (a results CSV), fetched with the caller's authorisation. */
  async download(path: string): Promise<Blob> {
    const response = await this.send('GET', path, {});
    if (!response.ok) throw new ApiProblem(response.status, response.statusText, '', []);
    return response.blob();
  }

  private async send(method: string, path: string, options: CallOptions): Promise<Response> {
    const url = new URL(this.base + path, location.href);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== '') url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (options.csv !== undefined) {
      headers['content-type'] = 'text/csv';
      body = options.csv;
    } else if (method !== 'GET') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json ?? {});
    }
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const authorization = await this.session.authorize({
      method,
      url,
      headers,
      ...(body !== undefined && { body }),
    });
    return fetch(url, {
      method,
      headers: { ...headers, ...authorization },
      ...(body !== undefined && { body }),
    });
  }
}
