import type { Approval, Principal } from '../controls/index.js';

/** The fields a correction may change; `amountKobo` is the item's amount in kobo. */
export const CORRECTABLE_FIELDS = [
  'accountNumber',
  'bankCode',
  'amountKobo',
  'phoneNumber',
  'narration',
] as const;
export type CorrectableField = (typeof CORRECTABLE_FIELDS)[number];
export type FieldValues = Partial<Record<CorrectableField, string | number>>;

/** The provider's validation record of an item, as returned by `PATCH /payout/bulk/item`. */
export interface ValidationRecord {
  readonly accountName: string;
  readonly accountNumber: string;
  readonly bankCode: string;
  readonly bankName: string;
  readonly isValid: boolean;
  readonly reason: string | null;
  readonly createdAt: string;
}

/** What we know of an item: the provider's latest record and the values our corrections set. */
export interface BulkItemState {
  readonly bulkPayoutItemId: string;
  readonly record: ValidationRecord;
  readonly values: FieldValues;
  /**
   * Who set `values.amountKobo`: the requester of the correction that set it. The gate trusts that amount only when
   * someone else releases money on it (a person may not vouch for their own amount); absent on states stored
   * before it was kept, whose amount is then not known here.
   */
  readonly amountSetBy?: Principal;
  readonly version: number;
  readonly updatedAt: string;
}

/** One field change; `from` is null when no earlier value was known (the item's first correction here). */
export interface FieldChange {
  readonly field: CorrectableField;
  readonly from: string | number | null;
  readonly fromKnown: boolean;
  readonly to: string | number;
}

export const CorrectionOutcome = {
  /** The provider saved the change and reports the item valid. */
  Corrected: 'corrected',
  /** The provider saved the change and still reports the item invalid, with its reason. */
  StillInvalid: 'still_invalid',
  /** Refused here before any provider call; `issues` name the fields. */
  Invalid: 'invalid',
  /** The provider refused the request (4xx); nothing changed there. */
  ProviderRejected: 'provider_rejected',
  /** The provider could not be reached; nothing was sent. */
  NotSent: 'not_sent',
  /** Sent, but no answer: the provider may have applied it. Check the item before correcting again. */
  Unknown: 'unknown',
  /**
   * A money change (destination of an item that may be valid, or an amount at or above the approval threshold):
   * recorded, nothing sent; a second person approves it (`POST /bulk-payout-items/{id}/corrections/{cid}/approve`).
   */
  PendingApproval: 'pending_approval',
  /** Payouts are paused: nothing was sent or recorded. */
  Paused: 'paused',
  /**
   * The day's daily cap of the main wallet, which the provider's bulk runs pay from, would be exceeded by the
   * amount at stake: nothing was sent or reserved (`DAILY_CAP_EXCEEDED`).
   */
  CapExceeded: 'cap_exceeded',
} as const;
export type CorrectionOutcome = (typeof CorrectionOutcome)[keyof typeof CorrectionOutcome];
/** Every outcome, for the schemas that read or present one (the stored audit, the API's answers). */
export const CORRECTION_OUTCOMES = Object.values(CorrectionOutcome) as [
  CorrectionOutcome,
  ...CorrectionOutcome[],
];

/** One audit entry per correction sent to the provider, whatever came of it. */
export interface CorrectionAudit {
  readonly bulkPayoutItemId: string;
  readonly at: string;
  readonly actor: Principal;
  /** The second person who approved a money change before it was sent. */
  readonly approvedBy?: Principal;
  readonly changes: readonly FieldChange[];
  readonly outcome: CorrectionOutcome;
  readonly provider?: { readonly isValid: boolean; readonly reason: string | null };
  readonly failure?: { readonly code: string; readonly message: string };
}

/** Status of a correction that waits for a second person. */
export const PendingCorrectionStatus = {
  PendingApproval: 'pending_approval',
  /** Approved and handed to the provider; `outcome` says what came of it. */
  Approved: 'approved',
  /** Withdrawn by a person while it waited (`cancelledBy`, `cancelledAt`, `cancelReason`); never sent. */
  Cancelled: 'cancelled',
} as const;
export type PendingCorrectionStatus = (typeof PendingCorrectionStatus)[keyof typeof PendingCorrectionStatus];

/** A correction that changes money (destination or a large amount), held until a second person approves it. */
export interface PendingCorrection {
  readonly correctionId: string;
  readonly bulkPayoutItemId: string;
  /** The fields as requested (amount in kobo), sent unchanged on approval. */
  readonly fields: Readonly<Record<string, string | number>>;
  readonly changes: readonly FieldChange[];
  /** Why a second person must approve it. */
  readonly reason: string;
  readonly status: PendingCorrectionStatus;
  readonly requestedBy: Principal;
  readonly requestedAt: string;
  readonly approvedBy?: Principal;
  readonly approvedAt?: string;
  /** The first of two approvals (at or above the second-approval threshold): it waits for a second approver. */
  readonly firstApproval?: Approval;
  readonly outcome?: CorrectionOutcome;
  /** Who withdrew it while it waited for approval, when, and why (if they said). */
  readonly cancelledBy?: Principal;
  readonly cancelledAt?: string;
  readonly cancelReason?: string;
  /** The row of a correction job it came from; the row takes its outcome once approved. */
  readonly job?: { readonly jobId: string; readonly index: number };
}

export type CorrectionResult =
  | { readonly outcome: 'pending_approval'; readonly correction: PendingCorrection }
  | {
      readonly outcome: 'paused' | 'cap_exceeded';
      readonly failure: { readonly code: string; readonly message: string };
    }
  | {
      readonly outcome: 'corrected' | 'still_invalid';
      readonly item: BulkItemState;
      readonly audit: CorrectionAudit;
    }
  | { readonly outcome: 'invalid'; readonly issues: readonly { path: string; message: string }[] }
  | {
      readonly outcome: 'provider_rejected' | 'not_sent' | 'unknown';
      readonly failure: { readonly code: string; readonly message: string; readonly status?: number };
      readonly audit?: CorrectionAudit;
    };

/** Who withdrew a held correction and why: what its job row records. */
export type HeldCancellation = Pick<PendingCorrection, 'cancelReason'> &
  Required<Pick<PendingCorrection, 'cancelledBy' | 'cancelledAt'>>;
