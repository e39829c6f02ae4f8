import type { Principal } from '../controls/index.js';
import { isConcurrentModificationOf, NotFoundError } from '../shared/errors.js';
import { CommandAudit } from './command-audit.js';
import type { RecurrenceContext } from './context.js';
import type { Recurrence, RecurrenceAuditEvent } from './model.js';

/** How many retries a command makes when the sweeper advanced the recurrence meanwhile. */
const COMMAND_RETRIES = 3;

/** @throws NotFoundError when no recurring payout has the id */
export async function getRecurrence(ctx: RecurrenceContext, id: string): Promise<Recurrence> {
  const recurrence = await ctx.store.get(id);
  if (!recurrence) throw new NotFoundError('recurring payout', id);
  return recurrence;
}

/**
 * Reads, applies a change, writes conditionally with the command's audit event; retries when the sweeper
 * advanced the recurrence meanwhile.
 *
 * `change` may change occurrence records before that write (holds, skips), and the write may then lose every
 * retry (409) or never come (the request cut off): so each occurrence write goes through `audit`, which commits
 * the command's provisional audit event with the first of them (command-audit.ts). The command's own event
 * supersedes it when the write commits; otherwise it stays in the trail, naming who changed the records.
 */
export async function runCommand(
  ctx: RecurrenceContext,
  id: string,
  actor: Principal,
  action: RecurrenceAuditEvent['action'],
  change: (
    recurrence: Recurrence,
    now: Date,
    audit: CommandAudit,
  ) => Promise<Partial<Recurrence> | undefined>,
  note?: string,
): Promise<Recurrence> {
  // One per invocation, across its retries: an occurrence changed by an attempt that lost stays covered by it.
  const audit = new CommandAudit({
    recurrenceId: id,
    actor,
    action,
    reason: note ?? `${action} by ${actor.id}`,
    clock: ctx.clock,
  });
  for (let attempt = 0; ; attempt++) {
    const recurrence = await getRecurrence(ctx, id);
    const now = ctx.clock.now();
    // Undefined: the command changed nothing (a repeated skip), so nothing is written or audited. An empty
    // change still writes a version with the command's audit event: it decided something elsewhere.
    const changes = await change(recurrence, now, audit);
    if (!changes) return recurrence;
    try {
      const version = recurrence.version + 1;
      return await ctx.store.replace(
        recurrence,
        { ...recurrence, ...changes, version, updatedAt: now.toISOString() },
        audit.event({
          recurrenceId: id,
          sequence: version,
          at: now.toISOString(),
          actor,
          action,
          reason: note ?? changes.statusReason ?? `${action} by ${actor.id}`,
        }),
      );
    } catch (error) {
      if (!isConcurrentModificationOf(error, 'recurring payout') || attempt >= COMMAND_RETRIES) throw error;
    }
  }
}
