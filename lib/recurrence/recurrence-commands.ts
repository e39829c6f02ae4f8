import type { Principal } from '../controls/index.js';
import { assertMayApprove, judgeApproval, MoneyEntryPoint } from '../controls/index.js';
import { describePayoutRequest } from '../payouts/index.js';
import { InvalidTransitionError, ValidationError } from '../shared/errors.js';
import type { CommandAudit } from './command-audit.js';
import { runCommand } from './command-loop.js';
import type { RecurrenceContext } from './context.js';
import { occurrenceFrom } from './materialise.js';
import { OccurrenceState, type Recurrence, RecurrenceStatus } from './model.js';
import { futureRecords, recordPassed, restartFrom, skipAsRead } from './passed-occurrences.js';
import { type Occurrence, occurrenceOn } from './rules.js';
import { cancelQuietly } from './skip-occurrence.js';

/**
 * The commands of a recurring payout after its creation (approve, reject, pause, resume, cancel, skip): each a
 * read, a change and a conditional write with its audit event, retried when the sweeper advanced the recurrence
 * meanwhile (runCommand, command-loop.ts). RecurrenceService extends it with the creation, the reads and the sweep.
 */
/** A command refused in the rule's state (409 invalid-transition): nothing written. */
function refused(message: string): InvalidTransitionError {
  return new InvalidTransitionError('recurring payout', message);
}

export class RecurrenceCommands {
  constructor(readonly ctx: RecurrenceContext) {}

  /**
   * Approves a rule waiting in `pending_approval` (four eyes: a person other than its creator, never a system
   * principal). Its occurrences are then requested by the creator and carry this approver, so they need no
   * approval of their own. Occurrences whose time passed while it waited are recorded as skipped. The approval
   * passes the control gate again with the limits in force now, since it releases the rule's money and the maximum
   * may have been lowered while the rule waited (each occurrence would be refused at its creation anyway): above
   * it the approval is refused and the rule stays `pending_approval`, unchanged, to be cancelled (or approved
   * once the maximum allows it). At or above the second-approval threshold (on an occurrence's amount) the first
   * approval is only recorded (`firstApproval`); a second approver, another person, activates it.
   *
   * @throws ApprovalForbiddenError when the approver is the creator or not a person, the amount is above the
   *   approver's limit, or the approver gave the first approval already
   * @throws ValidationError naming `amount` when the amount is above the per-payout maximum in force now
   */
  approve(id: string, approver: Principal): Promise<Recurrence> {
    return runCommand(this.ctx, id, approver, 'approved', async (recurrence, now, audit) => {
      if (recurrence.status !== RecurrenceStatus.PendingApproval) {
        throw refused(`recurring payout ${id} is ${recurrence.status}, not pending_approval`);
      }
      assertMayApprove(recurrence.createdBy, approver, `recurring payout ${id}`);
      // Refused before anything is written (no occurrence skipped, no version).
      const { reason: approved, releases } = judgeApproval(
        this.ctx.limits,
        describePayoutRequest(recurrence.template, MoneyEntryPoint.RecurringRule, approver),
        {
          what: `recurring payout ${id} (${recurrence.template.amount} kobo an occurrence)`,
          stays: RecurrenceStatus.PendingApproval,
          approver,
          firstApproval: recurrence.firstApproval,
          logger: this.ctx.logger,
        },
      );
      // The first of two: recorded and audited; the rule keeps waiting and materialises nothing.
      if (!releases)
        return { firstApproval: { actor: approver, at: now.toISOString() }, statusReason: approved };
      return {
        approvedBy: approver,
        ...(await restartFrom(
          this.ctx,
          recurrence,
          now,
          `fell before the rule was approved; approved by ${approver.id}`,
          approved,
          audit,
        )),
      };
    });
  }

  /**
   * Rejects a rule waiting in `pending_approval`: a second person's refusal, with the reason. It ends `cancelled`
   * with its `rejection`, for good; none of its occurrences was ever materialised, and none will be. Its creator
   * withdraws their own with a cancel.
   *
   * @throws ApprovalForbiddenError when the approver is the creator or not a person
   */
  reject(id: string, approver: Principal, reason: string): Promise<Recurrence> {
    return runCommand(
      this.ctx,
      id,
      approver,
      'rejected',
      async (recurrence, now) => {
        if (recurrence.status !== RecurrenceStatus.PendingApproval) {
          throw refused(
            `recurring payout ${id} is ${recurrence.status}; only a rule in pending_approval can be rejected`,
          );
        }
        assertMayApprove(recurrence.createdBy, approver, `recurring payout ${id}`, 'rejected');
        return {
          status: RecurrenceStatus.Cancelled,
          statusReason: `rejected by ${approver.id}: ${reason}`,
          rejection: { actor: approver, reason, at: now.toISOString() },
        };
      },
      `rejected by ${approver.id}: ${reason}`,
    );
  }

  /**
   * Stops materialising occurrences. The scheduled payouts of occurrences after now are cancelled and those
   * occurrences `held`: the resume decides on them (paid if their time is after the resume, skipped if not).
   */
  pause(id: string, actor: Principal, reason?: string): Promise<Recurrence> {
    return runCommand(this.ctx, id, actor, 'paused', async (recurrence, now, audit) => {
      if (recurrence.status !== RecurrenceStatus.Active) {
        throw refused(`recurring payout ${id} is ${recurrence.status}, not active`);
      }
      const why = `payout cancelled: paused by ${actor.id}`;
      let rewindTo = recurrence.nextIndex;
      for (const record of await futureRecords(this.ctx, recurrence, now)) {
        const { payoutId } = record;
        const held =
          record.state === OccurrenceState.Held ||
          (record.state === OccurrenceState.Materialised &&
            payoutId !== undefined &&
            (await cancelQuietly(this.ctx, payoutId, why)) &&
            // Held only with the pause's audit event (committed with it, or before it by an earlier hold).
            (await audit.write(recurrence, (provisional) =>
              this.ctx.store.holdOccurrence(id, record.localDate, payoutId, why, provisional),
            )));
        if (held) rewindTo = Math.min(rewindTo, record.index);
      }
      // The pointer goes back to the first held occurrence, so that the resume looks at it again.
      const first = occurrenceFrom(recurrence, rewindTo);
      return {
        status: RecurrenceStatus.Paused,
        statusReason: reason ?? `paused by ${actor.id}`,
        ...(first && { nextIndex: first.index, nextOccurrenceAt: first.at, nextLocalDate: first.localDate }),
      };
    });
  }

  /**
   * Resumes from the first occurrence at or after now, held ones included (their payout is created again under
   * a new key). Occurrences that fell in the pause are recorded as skipped (a pause means "do not pay these"),
   * so the history shows every one of them.
   */
  resume(id: string, actor: Principal): Promise<Recurrence> {
    return runCommand(this.ctx, id, actor, 'resumed', async (recurrence, now, audit) => {
      if (recurrence.status !== RecurrenceStatus.Paused) {
        throw refused(`recurring payout ${id} is ${recurrence.status}, not paused`);
      }
      return restartFrom(
        this.ctx,
        recurrence,
        now,
        `fell while paused; resumed by ${actor.id}`,
        `resumed by ${actor.id}`,
        audit,
      );
    });
  }

  /** Ends the recurrence for good; payouts already created for future occurrences are cancelled. */
  cancel(id: string, actor: Principal, reason?: string): Promise<Recurrence> {
    return runCommand(this.ctx, id, actor, 'cancelled', async (recurrence, now, audit) => {
      if (
        recurrence.status === RecurrenceStatus.Cancelled ||
        recurrence.status === RecurrenceStatus.Completed
      ) {
        throw refused(`recurring payout ${id} is already ${recurrence.status}`);
      }
      const why = `recurring payout cancelled by ${actor.id}`;
      if (recurrence.status === RecurrenceStatus.Paused) {
        // No resume will come to record the occurrences that fell in the pause: record them now.
        await recordPassed(this.ctx, recurrence, now, `fell while paused; ${why}`, audit);
      }
      for (const record of await futureRecords(this.ctx, recurrence, now)) {
        if (record.state === OccurrenceState.Skipped) continue;
        const occurrence = occurrenceOn(recurrence.rule, record.localDate);
        if (occurrence) await skipAsRead(this.ctx, recurrence, occurrence, now, why, record, audit);
      }
      return { status: RecurrenceStatus.Cancelled, statusReason: reason ?? `cancelled by ${actor.id}` };
    });
  }

  /**
   * Skips one named occurrence (its local date). Not yet materialised: it never will be. Materialised and
   * still scheduled: its payout is cancelled. Already released or paid: refused. A tick that materialises it
   * while the skip runs loses: the skip finds the payout, cancels it, then records the skip (audited).
   */
  skip(id: string, localDate: string, actor: Principal, reason?: string): Promise<Recurrence> {
    const note = `occurrence of ${localDate} skipped by ${actor.id}${reason ? `: ${reason}` : ''}`;
    const why = reason ? `skipped by ${actor.id}: ${reason}` : `skipped by ${actor.id}`;
    // Set once an attempt of this command recorded the skip: a retry (a tick moved the pointer past the
    // occurrence meanwhile) then finds it skipped, and must still write the command's audit event.
    let recordedHere = false;
    return runCommand(
      this.ctx,
      id,
      actor,
      'skipped',
      async (recurrence, now, audit) => {
        if (
          recurrence.status === RecurrenceStatus.Cancelled ||
          recurrence.status === RecurrenceStatus.Completed
        ) {
          throw refused(`recurring payout ${id} is ${recurrence.status}`);
        }
        const occurrence = occurrenceOn(recurrence.rule, localDate);
        if (!occurrence) {
          throw ValidationError.of([
            { path: 'localDate', message: `${localDate} is not an occurrence of recurring payout ${id}` },
          ]);
        }
        const ahead = occurrence.index >= recurrence.nextIndex;
        if (!recordedHere)
          recordedHere = await this.#recordNamedSkip(recurrence, occurrence, ahead, now, why, audit);
        // Dates ahead of the pointer are also kept on the recurrence, so the tick passes over them.
        if (ahead && !recurrence.skippedDates.includes(localDate)) {
          return { skippedDates: [...recurrence.skippedDates, localDate].sort() };
        }
        return recordedHere ? {} : undefined;
      },
      note,
    );
  }

  /**
   * Records the skip of a named occurrence, cancelling its payout if it has one. True when this call recorded
   * it, false when it was skipped already.
   *
   * @throws InvalidTransitionError when its payout is past cancelling, or it passed without a payout
   */
  async #recordNamedSkip(
    recurrence: Recurrence,
    occurrence: Occurrence,
    ahead: boolean,
    now: Date,
    why: string,
    audit: CommandAudit,
  ): Promise<boolean> {
    const { localDate } = occurrence;
    const record = await this.ctx.store.getOccurrence(recurrence.id, localDate);
    if (
      !ahead &&
      record?.state !== OccurrenceState.Skipped &&
      !record?.payoutId &&
      occurrence.at < now.toISOString()
    ) {
      throw refused(`the occurrence of ${localDate} is in the past`);
    }
    const outcome = await skipAsRead(this.ctx, recurrence, occurrence, now, why, record, audit);
    if (outcome.kind === 'payoutMoved') {
      throw refused(
        `the occurrence of ${localDate} is already past its scheduled state (payout ${outcome.payoutId}); it cannot be skipped`,
      );
    }
    return outcome.kind === 'recorded';
  }
}
