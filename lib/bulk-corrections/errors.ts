/** Base of every error the bulk-corrections module raises on purpose. */
export class BulkCorrectionError extends Error {
  override readonly name: string = 'BulkCorrectionError';
  readonly code: string = 'BULK_CORRECTION_ERROR';
}

/** Another correction of the same item was recorded between our read and our write. */
export class BulkItemConcurrentModificationError extends BulkCorrectionError {
  override readonly name = 'BulkItemConcurrentModificationError';
  override readonly code = 'CONCURRENT_MODIFICATION';
  constructor(
    readonly bulkPayoutItemId: string,
    options?: ErrorOptions,
  ) {
    super(`bulk payout item ${bulkPayoutItemId} was corrected concurrently; read it and try again`, options);
  }
}

/** No correction of this item has been recorded here. */
export class BulkItemNotFoundError extends BulkCorrectionError {
  override readonly name = 'BulkItemNotFoundError';
  override readonly code = 'BULK_ITEM_NOT_FOUND';
  constructor(readonly bulkPayoutItemId: string) {
    super(`no correction of bulk payout item ${bulkPayoutItemId} has been recorded`);
  }
}

/** No correction waiting for approval has this id on this item. */
export class PendingCorrectionNotFoundError extends BulkCorrectionError {
  override readonly name = 'PendingCorrectionNotFoundError';
  override readonly code = 'CORRECTION_NOT_FOUND';
  constructor(
    readonly bulkPayoutItemId: string,
    readonly correctionId: string,
  ) {
    super(`bulk payout item ${bulkPayoutItemId} has no correction ${correctionId}`);
  }
}

/** The correction was already approved (by someone else, or by a concurrent request). */
export class CorrectionAlreadyDecidedError extends BulkCorrectionError {
  override readonly name = 'CorrectionAlreadyDecidedError';
  override readonly code = 'CORRECTION_ALREADY_DECIDED';
  constructor(
    readonly bulkPayoutItemId: string,
    readonly correctionId: string,
  ) {
    super(
      `correction ${correctionId} of bulk payout item ${bulkPayoutItemId} is no longer waiting for approval`,
    );
  }
}
