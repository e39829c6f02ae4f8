import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_FUNCTIONS } from '../../lib/api/functions/index.js';
import { buildOpenApiDocument } from '../../lib/api/openapi.js';
import { presentPayout, presentProviderPage } from '../../lib/api/presenters.js';
import { PROBLEM_TYPES } from '../../lib/api/problem-types.js';
import {
  DEAD_LETTER_EVENT_MAX_BYTES,
  DEAD_LETTER_PREVIEW,
  DeadLetterResponseSchema,
  DeadLetterSummarySchema,
} from '../../lib/api/responses/dead-letter.js';
import { PayoutDetailSchema, PayoutPageSchema } from '../../lib/api/responses/payout.js';
import { ProblemSchema } from '../../lib/api/responses/problem.js';
import { ProviderWalletTransactionPageSchema, providerFields } from '../../lib/api/responses/provider.js';
import {
  RESULTS_CSV_CELL_MAXIMA,
  RESULTS_CSV_COLUMNS,
  resultsCsv,
} from '../../lib/api/routes/correction-jobs.js';
import {
  present as presentDeadLetter,
  presentSummary as presentDeadLetterSummary,
} from '../../lib/api/routes/dead-letters.js';
import { PAYOUT_EXPORT_COLUMNS, PAYOUT_EXPORT_PAGE_ROWS } from '../../lib/api/routes/payout-export.js';
import {
  RUN_RESULTS_CELL_MAXIMA,
  RUN_RESULTS_COLUMNS,
  RUN_RESULTS_PAGE_ROWS,
} from '../../lib/api/routes/payout-runs.js';
import { STATEMENT_CSV_PAGE_LINES, STATEMENT_LINE_MAXIMA } from '../../lib/api/routes/statements.js';
import type { JobItem } from '../../lib/bulk-corrections/job-model.js';
import { MAX_BATCH_CORRECTIONS } from '../../lib/bulk-corrections/schemas.js';
import type { DeadLetter } from '../../lib/events/dead-letters/index.js';
import { type AuditEvent, PayoutStatus } from '../../lib/payouts/model.js';
import { walletTransactionSchema } from '../../lib/provider/schemas/transaction.js';
import { CreateRecurrenceRequestSchema } from '../../lib/recurrence/schemas.js';
import { FIELD_MAXIMA } from '../../lib/shared/field-limits.js';
import { bankTransfer, command, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';
import { maxJsonBytes } from '../support/max-json-size.js';

/**
 * Lambda's limit on a synchronous invocation's response payload: 6 MB (6,291,456 bytes). The API function's
 * answer is that payload: the envelope `{"statusCode":…,"headers":{…},"body":"…"}` as JSON, the body an escaped
 * string inside it. (API Gateway's HTTP API allows 10 MB, so Lambda's limit is the one that binds; the handler
 * returns text bodies as they are, never base64, so no 4/3 inflation.)
 */
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;

/**
 * The envelope around the body: `statusCode` (3 digits), the JSON punctuation and names, and the headers, at
 * most: content-type (`text/csv; charset=utf-8`, `application/problem+json`), cache-control, and one of
 * location (a path with one id of at most 255 characters), idempotent-replayed, allow (three methods),
 * content-disposition (a file name with a 26-character job id), and a CSV part's `link` to the next part (a path
 * and a cursor of at most 2,048 characters, URL-encoded: three bytes each). 8 KB is more than all of them together.
 */
const ENVELOPE_BOUND = 8_192;

/**
 * How much a JSON body can grow when the envelope carries it as a JSON string: `JSON.stringify` of the body
 * leaves no control character and no lone surrogate raw (it escapes them), so each byte of the body is either
 * `"` or `\` (escaped as two bytes) or copied as it is. At most twice.
 */
const JSON_BODY_ESCAPING = 2;

/** The largest envelope a JSON body of at most `bodyBytes` makes. */
const jsonEnvelope = (bodyBytes: number) => ENVELOPE_BOUND + JSON_BODY_ESCAPING * bodyBytes;

/**
 * The largest `results.csv` envelope: per character of a cell at most 4 bytes (a `"` is doubled by CSV quoting,
 * then each escaped in the envelope; a BMP character takes 3 bytes of UTF-8, a surrogate pair 4 for two; control
 * characters and lone surrogates are replaced by U+FFFD), plus the cell's quotes (escaped, 4 bytes) and the
 * formula guard `'`; commas between cells, `\r\n` (escaped: 4 bytes) after each row; the header row; at most
 * MAX_BATCH_CORRECTIONS rows.
 */
function resultsCsvEnvelopeBytes(): number {
  const cells = Object.values(RESULTS_CSV_CELL_MAXIMA).map((max) => 4 * max + 4 + 1);
  const row = cells.reduce((a, b) => a + b, 0) + (RESULTS_CSV_COLUMNS.length - 1) + 4;
  const header = RESULTS_CSV_COLUMNS.join(',').length + 4;
  return ENVELOPE_BOUND + header + MAX_BATCH_CORRECTIONS * row;
}

/**
 * A CSV download of `rows` rows whose cells are at most `cellMaxima` characters (clipped, control characters
 * replaced, as `resultsCsvEnvelopeBytes` counts them), under a header of `headerBytes`.
 */
function csvEnvelopeBytes(cellMaxima: readonly number[], headerBytes: number, rows: number): number {
  const row = cellMaxima.reduce((sum, max) => sum + 4 * max + 4 + 1, 0) + (cellMaxima.length - 1) + 4;
  return ENVELOPE_BOUND + headerBytes + 4 + rows * row;
}

/** A kobo amount as CSV writes it (a safe integer, signed), and as naira (`NGN -90,071,992,547,409.91`). */
const KOBO_CELL = 17;
const NAIRA_CELL = 32;

/** One part of `lines.csv`: the date, the kind, four amounts in kobo, one in naira, the attempt, the texts. */
function statementCsvEnvelopeBytes(): number {
  const cells = [10, 64, ...Object.values(STATEMENT_LINE_MAXIMA), KOBO_CELL, KOBO_CELL, KOBO_CELL];
  const numbers = [KOBO_CELL, NAIRA_CELL, 6];
  // 18 columns of at most 24 characters of header each.
  return csvEnvelopeBytes([...cells, ...numbers], 18 * 25, STATEMENT_CSV_PAGE_LINES);
}

/**
 * Answers proven apart from their schema: the CSV download, and the OpenAPI document, which is a pure function
 * of the code (no stored data reaches it), so measuring it is its proof.
 */
const ANSWER_PROOFS: Record<string, () => number> = {
  'GET /bulk-correction-jobs/{id}/results.csv 200': resultsCsvEnvelopeBytes,
  'GET /payout-runs/{id}/results.csv 200': () =>
    csvEnvelopeBytes(
      Object.values(RUN_RESULTS_CELL_MAXIMA),
      RUN_RESULTS_COLUMNS.join(',').length,
      RUN_RESULTS_PAGE_ROWS,
    ),
  'GET /statements/{date}/lines.csv 200': statementCsvEnvelopeBytes,
  'GET /payouts/export.csv 200': () =>
    csvEnvelopeBytes(
      Object.values(PAYOUT_EXPORT_COLUMNS).map((column) => column.max),
      Object.keys(PAYOUT_EXPORT_COLUMNS).join(',').length,
      PAYOUT_EXPORT_PAGE_ROWS,
    ),
  'GET /openapi.json 200': () => jsonEnvelope(Buffer.byteLength(JSON.stringify(buildOpenApiDocument()))),
};

/**
 * Answers whose largest size is not yet proven from configuration, each with what bounds it today and what is
 * left to do. A route answering something not listed here must have maxima on every field, and a
 * route listed here that gains them fails this test until it is taken off the list.
 */
const NOT_YET_BOUNDED: Record<string, string> = {};

/** Every answer of every route, by the API function that returns it (each function is its own Lambda). */
const answers = Object.entries(API_FUNCTIONS).flatMap(([functionName, api]) =>
  api.routes.flatMap((route) =>
    Object.entries(route.responses).map(([status, answer]) => ({
      name: `${route.method} ${route.path} ${status}`,
      functionName,
      answer,
    })),
  ),
);

function largestEnvelope(name: string): number {
  const answer = answers.find((a) => a.name === name)?.answer;
  if (!answer) throw new Error(`${name}: no such answer`);
  const proof = ANSWER_PROOFS[name];
  if (proof) return proof();
  if (answer.mediaType !== undefined)
    throw new Error(`${name}: a ${answer.mediaType} answer without a size proof`);
  return jsonEnvelope(maxJsonBytes(answer.schema));
}

describe('every API answer fits Lambda’s 6 MB response (6,291,456 bytes)', () => {
  const proven = answers.filter((a) => NOT_YET_BOUNDED[a.name] === undefined);

  it.each(proven)('$functionName: $name: its largest envelope is below 6 MB', ({ name }) => {
    expect(largestEnvelope(name)).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  });

  it('covers every API function', () => {
    expect([...new Set(answers.map((a) => a.functionName))].sort()).toEqual(
      Object.keys(API_FUNCTIONS).sort(),
    );
  });

  it('every problem (errors of every route, statuses 400 to 503) is below 6 MB', () => {
    expect(Object.keys(PROBLEM_TYPES).length).toBeGreaterThan(0);
    expect(jsonEnvelope(maxJsonBytes(ProblemSchema))).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  });

  it.each(Object.keys(NOT_YET_BOUNDED))(
    '%s: still has a field without a maximum (listed as known)',
    (name) => {
      expect(() => largestEnvelope(name)).toThrow(/unbounded|no maximum size|without a size proof/);
    },
  );

  it('reports the largest proven answer', () => {
    const sizes = proven.map((a) => ({ name: a.name, bytes: largestEnvelope(a.name) }));
    const largest = sizes.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    console.info(`largest API answer: ${largest.name}, at most ${largest.bytes} bytes as a Lambda response`);
    expect(largest.bytes).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  });
});

describe('results.csv stays within its proof whatever the rows hold', () => {
  it('clips over-long texts, replaces control characters, and stays below the per-row bound', () => {
    const huge = `"=${'\u0001"\\é😀'.repeat(100_000)}`;
    const items: JobItem[] = Array.from({ length: 3 }, (_, n) => ({
      jobId: '01J0000000000000000000000A',
      index: n,
      bulkPayoutItemId: 'b'.repeat(64),
      fields: {},
      correctionId: '01J0000000000000000000000B',
      status: 'not_sent' as const,
      result: {
        isValid: false,
        reason: huge,
        failure: { code: huge, message: huge },
        issues: [{ path: huge, message: huge }],
      },
      updatedAt: '2026-11-23T20:35:00.000Z',
    }));
    const csv = resultsCsv(items);
    const envelope = Buffer.byteLength(JSON.stringify({ body: csv }));
    const perRow = (resultsCsvEnvelopeBytes() - ENVELOPE_BOUND) / MAX_BATCH_CORRECTIONS;
    expect(envelope).toBeLessThanOrEqual(
      ENVELOPE_BOUND + RESULTS_CSV_COLUMNS.join(',').length + 4 + 3 * perRow,
    );
    expect(csv.replaceAll('\r\n', '')).not.toMatch(/\p{Cc}/u);
    expect(csv).toContain('…');
  });
});

describe('a payout is answered within its schema whatever the provider and the engine stored', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => h.close());

  it('clips provider texts, labels and the audit trail to the maxima the proof reads', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(10_000), 'answer-sizes-huge'));
    // Control characters and a lone surrogate: JSON would write each as a six-byte escape.
    const huge = `\u0001"\\\ud800é😀${'x\u001f'.repeat(150_000)}`;
    const many = Array.from({ length: 1_000 }, (_, n) => n + 1);
    const labels = Object.fromEntries(many.map((n) => [`k${n}${huge}`, huge]));
    const swollen = {
      ...payout,
      status: PayoutStatus.NeedsReview,
      narration: huge,
      metadata: labels,
      idempotencyKey: huge,
      requestedBy: { id: huge, kind: 'user' as const },
      receipt: {
        transactionId: huge,
        reference: huge,
        sessionId: huge,
        status: huge,
        chargesKobo: 0,
        paidAt: huge,
      },
      failure: { code: huge, message: huge },
      paidTwice: { attempts: many, transactionIds: many.map(() => huge) },
      watchedAttempts: many.map((number) => ({
        number,
        startedAt: payout.createdAt,
        provedAbsentAt: payout.createdAt,
        watchUntil: payout.createdAt,
      })),
      resolutionProposal: {
        outcome: 'paid_twice_recovered' as const,
        transactionId: huge,
        recoveryReference: huge,
        forced: true,
        note: huge,
        proposedBy: { id: huge, kind: 'user' as const },
        proposedAt: payout.createdAt,
        mismatch: huge,
      },
      recovery: {
        recoveryReference: huge,
        transactionIds: many.map(() => huge),
        proposedBy: { id: huge, kind: 'user' as const },
        confirmedBy: { id: huge, kind: 'user' as const },
        at: payout.createdAt,
      },
    };
    const audit: AuditEvent[] = many.map((sequence) => ({
      payoutId: payout.id,
      sequence,
      at: payout.createdAt,
      actor: { id: huge, kind: 'system' },
      from: null,
      to: PayoutStatus.NeedsReview,
      reason: huge,
      details: labels,
    }));
    const answer = presentPayout(swollen, audit);
    const parsed = PayoutDetailSchema.safeParse(answer);
    expect(parsed.error?.issues ?? []).toEqual([]);
    const json = JSON.stringify(answer);
    expect(json).not.toContain('\\u');
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(maxJsonBytes(PayoutDetailSchema));
    expect(answer.audit).toHaveLength(FIELD_MAXIMA.audit);
    expect(answer.audit?.at(-1)?.sequence).toBe(1_000);
    // The 900 older entries are left out, and the answer says so.
    expect(answer.audit?.[0]?.sequence).toBe(901);
    expect(answer.auditOmitted).toBe(900);
    expect(presentPayout(payout, audit.slice(0, FIELD_MAXIMA.audit))).not.toHaveProperty('auditOmitted');
    expect(answer.failure?.message).toHaveLength(FIELD_MAXIMA.message);
    expect(Object.keys(answer.metadata).length).toBeLessThanOrEqual(FIELD_MAXIMA.metadataKeys);
    expect(Buffer.byteLength(JSON.stringify(answer.metadata))).toBeLessThanOrEqual(
      FIELD_MAXIMA.metadataBytes,
    );
    // A page of a hundred of them is within the page's proof too.
    const page = { items: Array.from({ length: FIELD_MAXIMA.page }, () => presentPayout(swollen)) };
    expect(PayoutPageSchema.safeParse(page).success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(maxJsonBytes(PayoutPageSchema));
  });
});

describe('a provider page is answered within its schema whatever the provider sends', () => {
  it('keeps a page of known fields, each string clipped, and leaves the provider’s other fields out', () => {
    const huge = `\u0001${'x'.repeat(100_000)}`;
    const record = Object.fromEntries(
      Object.keys(providerFields(walletTransactionSchema)).map((key) => [
        key,
        /amount|charges/i.test(key) ? 1234.5 : huge,
      ]),
    );
    const page = {
      items: Array.from({ length: 150 }, () => ({ ...record, extra: huge })),
      pagination: { page: 1, perPage: 150, totalRecords: 150, totalPages: 1 },
    };
    const answer = presentProviderPage(page, walletTransactionSchema);
    const parsed = ProviderWalletTransactionPageSchema.safeParse(answer);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(answer.items).toHaveLength(FIELD_MAXIMA.page);
    expect(answer.items[0]).not.toHaveProperty('extra');
    expect(answer.items[0]?.description).toHaveLength(FIELD_MAXIMA.name);
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(
      maxJsonBytes(ProviderWalletTransactionPageSchema),
    );
  });
});

describe('a dead letter is answered within its schema whatever was delivered', () => {
  const letter = (event: unknown): DeadLetter => ({
    id: '01J0000000000000000000000C',
    event,
    detailType: 'Payout Requested',
    error: {
      name: 'InvalidEventError',
      code: 'invalid-event',
      message: 'x'.repeat(5_000),
      issues: Array.from({ length: 80 }, (_, n) => ({ path: `detail.f${n}`, message: 'wrong' })),
    },
    at: '2026-11-23T20:35:00.000Z',
    status: 'open',
    actions: Array.from({ length: 150 }, (_, n) => ({
      action: 'replay' as const,
      by: { id: `ops-${n}`, kind: 'user' as const },
      at: '2026-11-23T20:35:00.000Z',
      note: 'refused again',
    })),
  });

  it('lists the error and the start of the event; the detail answers the event whole', () => {
    const event = { 'detail-type': 'Payout Requested', detail: { narration: 'n'.repeat(250_000) } };
    const summary = presentDeadLetterSummary(letter(event));
    expect(DeadLetterSummarySchema.safeParse(summary).error?.issues ?? []).toEqual([]);
    expect(summary).not.toHaveProperty('event');
    expect(summary.eventPreview).toHaveLength(DEAD_LETTER_PREVIEW);
    expect(summary.eventBytes).toBe(Buffer.byteLength(JSON.stringify(event)));
    expect(summary.error.issues).toHaveLength(FIELD_MAXIMA.rowIssues);
    expect(summary.error.issuesOmitted).toBe(80 - FIELD_MAXIMA.rowIssues);

    const detail = presentDeadLetter(letter(event));
    expect(DeadLetterResponseSchema.safeParse(detail).error?.issues ?? []).toEqual([]);
    expect(detail.event).toEqual(event);
    expect(detail).not.toHaveProperty('eventPreview');
    expect(detail.actions).toHaveLength(FIELD_MAXIMA.audit);
    expect(detail.actions[0]?.by.id).toBe('ops-50');
    expect(detail.actionsOmitted).toBe(50);
    expect(detail.error.issuesOmitted).toBe(80 - FIELD_MAXIMA.issues);
    expect(Buffer.byteLength(JSON.stringify(detail))).toBeLessThanOrEqual(
      maxJsonBytes(DeadLetterResponseSchema),
    );
  });

  it('answers an event above its maximum by its size and its start', () => {
    const event = { detail: 'e'.repeat(DEAD_LETTER_EVENT_MAX_BYTES) };
    const detail = presentDeadLetter(letter(event));
    expect(detail).not.toHaveProperty('event');
    expect(detail.eventPreview).toHaveLength(DEAD_LETTER_PREVIEW);
    expect(detail.eventBytes).toBeGreaterThan(DEAD_LETTER_EVENT_MAX_BYTES);
  });
});

describe('inputs that are stored and answered have the same maxima', () => {
  it('refuses a recurrence time zone longer than the answer allows, naming the field', () => {
    const parsed = CreateRecurrenceRequestSchema.safeParse({
      type: 'wallet_credit',
      amount: 100,
      currency: 'NGN',
      narration: 'float',
      walletId: 'w1',
      interval: 'daily',
      startDate: '2027-01-01',
      timeOfDay: '09:00',
      timeZone: `Africa/${'L'.repeat(FIELD_MAXIMA.word)}`,
    });
    const issues = parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message]);
    expect(issues).toContainEqual(['timeZone', `must be at most ${FIELD_MAXIMA.word} characters`]);
    expect(issues?.every(([path]) => path === 'timeZone')).toBe(true);
  });
});
