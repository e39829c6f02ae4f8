import { BATCH_WRITE_MAX_ITEMS } from '../shared/batch-write.js';
import type { Listing } from '../shared/index-listing.js';
import {
  storedPrincipal as principalSchema,
  storedApproval,
  storedRejection,
} from '../shared/stored-principal.js';
import * as z from '../shared/zod.js';
import { RunState } from './model.js';

/**
 * Payout runs in the single table, one item collection per run:
 *
 * | item | pk                              | sk           | indexes                                                 |
 * |------|---------------------------------|--------------|---------------------------------------------------------|
 * | run  | PAYOUT_RUN#<runId>              | RUN          | gsi1 PAYOUT_RUN#STATE#<state>, gsi2 PAYOUT_RUN#ALL; gsi3 PAYOUT_RUN#MATERIALISE while materialising |
 * | row  | PAYOUT_RUN#<runId>              | ROW#<00000>  |                                                         |
 * | file | PAYOUT_RUN#FILE#<fingerprint>   | RUN#<runId>  | (the runs of the same rows: a probable duplicate)       |
 * | claim| PAYOUT_RUN#FILE#<fingerprint>   | FIRST        | (the first run of these rows not acknowledged as a duplicate: written only if absent) |
 * | end  | PAYOUT_RUN#<runId>              | END#<00000>  | (the row's end, counted onto the run once: written only if absent) |
 * | key  | IDEMPOTENCY#payout-run#<key>    | IDEMPOTENCY  | (the client's Idempotency-Key, naming the run: `runId`) |
 *
 * The run item counts its rows' ends in flat attributes (`endedRows`, `endedAttention`, `endedSentKobo`,
 * `endedFailedKobo`, `ended_<end>`): DynamoDB's ADD needs no map to exist first, so the first end needs no set-up.
 */
export const runKeys = {
  run: (runId: string) => ({ pk: `PAYOUT_RUN#${runId}`, sk: 'RUN' }),
  row: (runId: string, index: number) => ({
    pk: `PAYOUT_RUN#${runId}`,
    sk: `ROW#${String(index).padStart(5, '0')}`,
  }),
  file: (contentFingerprint: string, runId: string) => ({
    pk: `PAYOUT_RUN#FILE#${contentFingerprint}`,
    sk: `RUN#${runId}`,
  }),
  /** Claimed in the run's own transaction, only if absent: two runs of the same rows at once cannot both pass. */
  fileClaim: (contentFingerprint: string) => ({
    pk: `PAYOUT_RUN#FILE#${contentFingerprint}`,
    sk: 'FIRST',
  }),
  /** A row's end, counted once: its marker is put only if absent, in the transaction that counts it. */
  rowEnd: (runId: string, index: number) => ({
    pk: `PAYOUT_RUN#${runId}`,
    sk: `END#${String(index).padStart(5, '0')}`,
  }),
  idempotency: (idempotencyKey: string) => ({
    pk: `IDEMPOTENCY#payout-run#${idempotencyKey}`,
    sk: 'IDEMPOTENCY',
  }),
} as const;

/** The work-queue (gsi3) partition of the runs whose rows are still to become payouts. */
export const MATERIALISE_PARTITION = 'PAYOUT_RUN#MATERIALISE';
export const runListing: Listing = {
  statePartition: (state) => `PAYOUT_RUN#STATE#${state}`,
  allPartition: 'PAYOUT_RUN#ALL',
};

/** DynamoDB's limit on one BatchWriteItem. */
export const RUN_ROWS_PER_BATCH_WRITE = BATCH_WRITE_MAX_ITEMS;

export const runSchema = z.lazy(() =>
  z.object({
    runId: z.string(),
    state: z.enum(Object.values(RunState)),
    count: z.int(),
    totalKobo: z.int(),
    largestRows: z.array(z.object({ row: z.int(), reference: z.string(), amountKobo: z.int() })),
    fileSha256: z.string(),
    contentFingerprint: z.string(),
    source: z.enum(['csv', 'json']),
    requestedBy: principalSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
    approvalReason: z.optional(z.string()),
    approvedBy: z.optional(principalSchema),
    approvedAt: z.optional(z.string()),
    firstApproval: z.optional(storedApproval),
    materialised: z.int(),
    acknowledged: z.optional(z.object({ duplicateLines: z.int(), duplicateRunIds: z.array(z.string()) })),
    cancelledBy: z.optional(principalSchema),
    cancelledAt: z.optional(z.string()),
    cancelReason: z.optional(z.string()),
    rejection: z.optional(storedRejection),
    endedAt: z.optional(z.string()),
  }),
);

export const rowSchema = z.lazy(() =>
  z.object({
    runId: z.string(),
    index: z.int(),
    reference: z.string(),
    amountKobo: z.int(),
    beneficiary: z.object({ bankCode: z.string(), accountNumber: z.string(), accountName: z.string() }),
    narration: z.string(),
    scheduleAt: z.optional(z.string()),
    payoutId: z.optional(z.string()),
    failure: z.optional(z.object({ code: z.string(), message: z.string() })),
  }),
);
export const RowCursorSchema = z.lazy(() =>
  z.strictObject({
    pk: z.string().check(z.regex(/^PAYOUT_RUN#[0-9A-HJKMNP-TV-Z]{26}$/)),
    sk: z.string().check(z.regex(/^ROW#\d{5}$/)),
  }),
);
