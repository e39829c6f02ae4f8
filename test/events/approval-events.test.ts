import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  APPROVAL_DECIDED_EVENT,
  APPROVAL_EVENT_KINDS,
  APPROVAL_REQUESTED_EVENT,
  ApprovalDecidedDetailSchema,
  type ApprovalEvent,
  ApprovalRequestedDetailSchema,
  approvalEventOf,
  type PublishedEvent,
} from '../../lib/events/domain-events.js';
import { InProcessEventBus } from '../../lib/events/event-publisher.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { StreamRelay } from '../../lib/local/stream-relay.js';
import { approvePayout, rejectPayout } from '../../lib/payouts/engine/payout-commands.js';
import {
  bankTransfer,
  bob,
  command,
  type EngineHarness,
  startEngineHarness,
} from '../support/engine-harness.js';

let h: EngineHarness;
let dynamoDb: DynamoDBClient;

beforeAll(async () => {
  h = await startEngineHarness({ approvalThresholdKobo: 1_000_000 });
  dynamoDb = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
});
afterAll(async () => {
  dynamoDb.destroy();
  await h.close();
});

const isApproval = (event: PublishedEvent): event is ApprovalEvent =>
  event.detailType === APPROVAL_REQUESTED_EVENT || event.detailType === APPROVAL_DECIDED_EVENT;

/** The table's stream relayed to a bus, and the approval events it published. */
async function relayedApprovals() {
  const bus = new InProcessEventBus();
  const received: ApprovalEvent[] = [];
  bus.subscribe((event) => {
    if (isApproval(event)) received.push(event);
  });
  const relay = await StreamRelay.forTable(dynamoDb, inject('dynamoDbEndpoint'), h.tableName, bus, h.logger);
  return { received, relay };
}

describe('approval events from the table stream', () => {
  it('publishes one Approval Requested for a payout at the threshold, none below it, and one Approval Decided naming the approver', async () => {
    const { received, relay } = await relayedApprovals();

    const { payout: large } = await h.engine.create(command(bankTransfer(2_500_000), 'approval-large'));
    const { payout: small } = await h.engine.create(command(bankTransfer(10_000), 'approval-small'));
    expect(large.status).toBe('pending_approval');
    await relay.pollOnce();
    await approvePayout(h.engine.ctx, large.id, bob);
    await relay.pollOnce();
    await relay.stop();

    expect(received.map((event) => event.detailType)).toEqual([
      APPROVAL_REQUESTED_EVENT,
      APPROVAL_DECIDED_EVENT,
    ]);
    const [requested, decided] = received;
    expect(ApprovalRequestedDetailSchema.parse(requested?.detail)).toMatchObject({
      kind: 'payout',
      id: large.id,
      amountKobo: 2_500_000,
      requestedBy: { id: 'alice', kind: 'user' },
      link: { path: `/payouts/${large.id}`, approveCommand: `npx payouts payouts approve ${large.id}` },
    });
    expect(ApprovalDecidedDetailSchema.parse(decided?.detail)).toMatchObject({
      kind: 'payout',
      id: large.id,
      decision: 'approved',
      decidedBy: { id: 'bob', kind: 'user' },
    });
    expect(received.some((event) => event.detail.id === small.id)).toBe(false);
    // One id per transition: a redelivered record or event carries the same one, and is dropped by it.
    expect(requested?.detail.eventId).toBe(`approval:payout:${large.id}:requested`);
    expect(decided?.detail.eventId).toBe(`approval:payout:${large.id}:decided`);
    // The beneficiary's account number is in the payout, never in its approval events.
    expect(JSON.stringify(received)).not.toContain('0123456789');
  });
});

describe('a rejected payout', () => {
  it('publishes Approval Decided `rejected`, naming who rejected it and when', async () => {
    const { received, relay } = await relayedApprovals();
    const { payout } = await h.engine.create(command(bankTransfer(3_000_000), 'approval-rejected'));
    await relay.pollOnce();
    const rejected = await rejectPayout(h.engine.ctx, payout.id, bob, 'not on the vendor list');
    await relay.pollOnce();
    await relay.stop();
    const decided = received.find(
      (event) => event.detailType === APPROVAL_DECIDED_EVENT && event.detail.id === payout.id,
    );
    expect(ApprovalDecidedDetailSchema.parse(decided?.detail)).toMatchObject({
      id: payout.id,
      decision: 'rejected',
      decidedBy: { id: 'bob', kind: 'user' },
      occurredAt: rejected.rejection?.at,
    });
  });
});

describe('every kind that waits for a second person publishes its approval events', () => {
  const alice = { id: 'alice', kind: 'user' };
  const carol = { id: 'carol', kind: 'user' };
  const cases = [
    {
      kind: 'refund',
      item: { entity: 'refund', id: 'rf1', amountKobo: 900, requestedBy: alice, createdAt: 't0' },
      approveCommand: 'npx payouts refunds approve rf1',
    },
    {
      kind: 'recurring-payout',
      item: { entity: 'recurrence', id: 'rc1', template: { amount: 700 }, createdBy: alice, createdAt: 't0' },
      approveCommand: 'npx payouts recurring approve rc1',
    },
    {
      kind: 'bulk-correction',
      item: {
        entity: 'bulk-item-correction',
        correctionId: 'c1',
        bulkPayoutItemId: 'b1',
        fields: { amount: 500 },
        requestedBy: alice,
        requestedAt: 't0',
      },
      approveCommand: 'npx payouts bulk approve b1 c1',
    },
  ] as const;

  it.each(cases)(
    '$kind: entering pending_approval requests, a withdrawal decides',
    ({ kind, item, approveCommand }) => {
      const requested = approvalEventOf({
        eventName: 'INSERT',
        dynamodb: { NewImage: marshall({ ...item, status: 'pending_approval' }) },
      });
      expect(requested?.detailType).toBe(APPROVAL_REQUESTED_EVENT);
      expect(requested?.detail).toMatchObject({ kind, link: { approveCommand } });
      const decided = approvalEventOf({
        eventName: 'MODIFY',
        dynamodb: {
          OldImage: marshall({ ...item, status: 'pending_approval' }),
          NewImage: marshall({ ...item, status: 'cancelled', cancelledBy: carol }),
        },
      });
      expect(decided?.detail).toMatchObject({ kind, decision: 'cancelled', decidedBy: carol });
    },
  );

  it('a payout run: its total, requested at creation and decided by its approver', () => {
    const run = { entity: 'payout-run', runId: 'r1', totalKobo: 12_345, requestedBy: alice, createdAt: 't0' };
    const requested = approvalEventOf({
      eventName: 'INSERT',
      dynamodb: { NewImage: marshall({ ...run, state: 'pending_approval' }) },
    });
    expect(requested?.detail).toMatchObject({ kind: 'payout-run', id: 'r1', amountKobo: 12_345 });
    const decided = approvalEventOf({
      eventName: 'MODIFY',
      dynamodb: {
        OldImage: marshall({ ...run, state: 'pending_approval' }),
        NewImage: marshall({ ...run, state: 'materialising', approvedBy: carol, approvedAt: 't1' }),
      },
    });
    expect(decided?.detail).toMatchObject({ decision: 'approved', decidedBy: carol, occurredAt: 't1' });
    // Materialising progress afterwards is no transition of the approval.
    expect(
      approvalEventOf({
        eventName: 'MODIFY',
        dynamodb: {
          OldImage: marshall({ ...run, state: 'materialising' }),
          NewImage: marshall({ ...run, state: 'materialised' }),
        },
      }),
    ).toBeUndefined();
  });
});

describe('an instruction that takes two approvers', () => {
  const carol = { id: 'carol', kind: 'user' } as const;

  it('publishes an Approval Requested for the second approver at the first approval, naming the first approver, and one Approval Decided naming both at the second', async () => {
    const { received, relay } = await relayedApprovals();
    const ctx = {
      ...h.engine.ctx,
      config: { ...h.engine.ctx.config, secondApprovalThresholdKobo: 2_000_000 },
    };
    const { payout } = await h.engine.create(command(bankTransfer(2_500_000), 'approval-two-approvers'));
    await relay.pollOnce();
    const first = await approvePayout(ctx, payout.id, bob);
    expect(first.status).toBe('pending_approval');
    await relay.pollOnce();
    const ofPayout = () => received.filter((event) => event.detail.id === payout.id);
    expect(ofPayout().map((event) => event.detailType)).toEqual([
      APPROVAL_REQUESTED_EVENT,
      APPROVAL_REQUESTED_EVENT,
    ]);
    expect(ApprovalRequestedDetailSchema.parse(ofPayout()[0]?.detail)).toMatchObject({ stage: 'first' });
    const second = ApprovalRequestedDetailSchema.parse(ofPayout()[1]?.detail);
    expect(second).toMatchObject({
      eventId: `approval:payout:${payout.id}:requested-second`,
      stage: 'second',
      kind: 'payout',
      amountKobo: 2_500_000,
      requestedBy: { id: 'alice', kind: 'user' },
      firstApproval: { by: { id: 'bob', kind: 'user' }, at: first.firstApproval?.at },
      link: { approveCommand: `npx payouts payouts approve ${payout.id}` },
      occurredAt: first.firstApproval?.at,
    });
    expect(JSON.stringify(second)).not.toContain('0123456789');

    await approvePayout(ctx, payout.id, carol);
    await relay.pollOnce();
    await relay.stop();
    expect(ofPayout().map((event) => event.detailType)).toEqual([
      APPROVAL_REQUESTED_EVENT,
      APPROVAL_REQUESTED_EVENT,
      APPROVAL_DECIDED_EVENT,
    ]);
    expect(ApprovalDecidedDetailSchema.parse(ofPayout()[2]?.detail)).toMatchObject({
      decision: 'approved',
      decidedBy: { id: 'carol', kind: 'user' },
      firstApproval: { by: { id: 'bob', kind: 'user' }, at: first.firstApproval?.at },
    });
  });

  it.each([
    { entity: 'refund', id: 'rf2', amountKobo: 900, status: 'requested' },
    { entity: 'recurrence', id: 'rc2', template: { amount: 700 }, status: 'active' },
    { entity: 'payout-run', runId: 'r2', totalKobo: 900, state: 'materialising' },
    { entity: 'bulk-item-correction', correctionId: 'c2', bulkPayoutItemId: 'b2', status: 'approved' },
  ])(
    '$entity: its first approval requests the second approver, and its Approval Decided names the first approval too',
    ({ status, state, ...item }) => {
      const alice = { id: 'alice', kind: 'user' };
      const waiting = {
        ...item,
        requestedBy: alice,
        createdBy: alice,
        [state ? 'state' : 'status']: 'pending_approval',
      };
      const firstApproval = { actor: { id: 'bob', kind: 'user' }, at: 't1' };
      // The first approval keeps it waiting, now for a second person other than the first approver.
      const kind = APPROVAL_EVENT_KINDS[item.entity as keyof typeof APPROVAL_EVENT_KINDS];
      const instructionId =
        'runId' in item ? item.runId : 'correctionId' in item ? item.correctionId : item.id;
      const secondRequest = approvalEventOf({
        eventName: 'MODIFY',
        dynamodb: { OldImage: marshall(waiting), NewImage: marshall({ ...waiting, firstApproval }) },
      });
      expect(secondRequest?.detailType).toBe(APPROVAL_REQUESTED_EVENT);
      expect(ApprovalRequestedDetailSchema.parse(secondRequest?.detail)).toMatchObject({
        eventId: `approval:${kind}:${instructionId}:requested-second`,
        kind,
        stage: 'second',
        requestedBy: alice,
        firstApproval: { by: { id: 'bob', kind: 'user' }, at: 't1' },
        occurredAt: 't1',
      });
      // Any later change while it still waits (the same first approval) publishes nothing more.
      expect(
        approvalEventOf({
          eventName: 'MODIFY',
          dynamodb: {
            OldImage: marshall({ ...waiting, firstApproval }),
            NewImage: marshall({ ...waiting, firstApproval, updatedAt: 't2' }),
          },
        }),
      ).toBeUndefined();
      const released = {
        ...waiting,
        firstApproval,
        approvedBy: carol,
        [state ? 'state' : 'status']: state ?? status,
      };
      const decided = approvalEventOf({
        eventName: 'MODIFY',
        dynamodb: { OldImage: marshall({ ...waiting, firstApproval }), NewImage: marshall(released) },
      });
      expect(ApprovalDecidedDetailSchema.parse(decided?.detail)).toMatchObject({
        decision: 'approved',
        decidedBy: carol,
        firstApproval: { by: { id: 'bob', kind: 'user' }, at: 't1' },
      });
    },
  );
});
