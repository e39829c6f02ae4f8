/** Per-call options, the second argument of every method. */
export type RequestOptions = {
  /** Aborts the call. An abort after sending a POST/PATCH leaves its outcome unknown. */
  signal?: AbortSignal;
  /** Deadline of each HTTP attempt (connect, send, response), overriding the client default. */
  timeoutMs?: number;
  /**
   * Deadline of the whole call: credential reads, every attempt and the waits between them. The client's
   * attempt deadline (`timeouts.requestMs`) by default; a call aborted by it after sending a POST/PATCH has an
   * unknown outcome.
   */
  deadlineMs?: number;
};

/** Options of the auto-paging `listAll` methods. */
export type ListAllOptions = RequestOptions & {
  /** Stop after this many pages even if the provider reports more (default 100). */
  maxPages?: number;
};

/** Minimal structured logger; compatible with Powertools Logger. Never receives token or PIN. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What every method resolves to: the parsed `data` payload and the envelope `message`
 * (`undefined` on the five endpoints that send none).
 */
export type ProviderResult<T> = { message: string | undefined; data: T };

/** The pagination block as the provider sent it (`size`, or `perpage` on the single-payout lists). */
export type RawPagination = {
  page: number;
  size?: number;
  perpage?: number;
  totalRecords: number;
  totalPages: number;
};

/** Pagination normalised across endpoints, with the raw block kept. */
export type Pagination = {
  page: number;
  perPage: number;
  totalRecords: number;
  totalPages: number;
  raw: RawPagination;
};

/** One page of a list: its items, normalised pagination, and the whole `data` (aggregates included). */
export type Page<TItem, TData = unknown> = ProviderResult<TData> & { items: TItem[]; pagination: Pagination };

/** Query of every list endpoint: 1-based `page`, `perPage` at most 100 (provider defaults 1 and 20). */
export type PageParams = { page?: number; perPage?: number };
