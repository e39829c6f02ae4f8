import { afterAll, describe, expect, it } from 'vitest';
import type { OperatorChange, OperatorProposal } from '../../lib/operators/model.js';
import type { OperatorRecords } from '../../lib/operators/records.js';
import { DynamoDbOperatorStore } from '../../lib/operators/store/dynamodb-operator-store.js';
import { InMemoryOperatorStore } from '../../lib/operators/store/in-memory-operator-store.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The operators' records' contract, run against the table (DynamoDB Local) and against memory, so the in-memory
 * store the service's unit tests use cannot drift from the one that ships.
 */
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

const implementations: [string, () => Promise<OperatorRecords>][] = [
  [
    'DynamoDbOperatorStore',
    async () => {
      const table = await createTestTable('operator-records');
      closers.push(() => table.client.destroy());
      return new DynamoDbOperatorStore(table.client, table.tableName);
    },
  ],
  ['InMemoryOperatorStore', async () => new InMemoryOperatorStore()],
];

const admin = { id: 'ada#cognito:sub-ada', kind: 'user' } as const;
let ids = 0;
const nextId = () => {
  ids += 1;
  return `01JOPERATOR${String(ids).padStart(15, '0')}`;
};

function changeOf(username: string, at: string, overrides: Partial<OperatorChange> = {}): OperatorChange {
  return {
    id: nextId(),
    username,
    action: 'granted',
    actor: admin,
    at,
    from: { groups: [], enabled: true },
    to: { groups: ['viewer'], enabled: true },
    reason: 'joins finance',
    ...overrides,
  };
}

function proposalOf(username: string, overrides: Partial<OperatorProposal> = {}): OperatorProposal {
  return {
    id: nextId(),
    username,
    kind: 'grant',
    groups: ['approver'],
    reason: 'approves payroll',
    proposedBy: admin,
    proposedAt: '2026-12-01T09:00:00.000Z',
    status: 'pending',
    ...overrides,
  };
}

describe.each(implementations)('%s', (_name, make) => {
  it('answers the audit oldest first, keeping the newest when a limit cuts it', async () => {
    const records = await make();
    const changes = ['2026-12-01T09:00:00.000Z', '2026-12-01T10:00:00.000Z', '2026-12-01T11:00:00.000Z'].map(
      (at) => changeOf('bola', at),
    );
    for (const change of [changes[2], changes[0], changes[1]]) if (change) await records.record(change);
    expect((await records.audit('bola')).map((change) => change.at)).toEqual(
      changes.map((change) => change.at),
    );
    expect((await records.audit('bola', 2)).map((change) => change.id)).toEqual(
      changes.slice(1).map((change) => change.id),
    );
    expect(await records.audit('nobody')).toEqual([]);
  });

  it('reads an operator by username whatever its case', async () => {
    const records = await make();
    const change = changeOf('Chidi', '2026-12-01T09:00:00.000Z');
    await records.record(change);
    expect(await records.audit('chidi')).toEqual([change]);
  });

  it('records a proposal with its change, lists it while pending, and not once decided', async () => {
    const records = await make();
    const proposal = proposalOf('dayo');
    await records.record(changeOf('dayo', '2026-12-01T09:00:00.000Z', { action: 'grant-proposed' }), {
      proposal,
    });
    expect(await records.proposal('dayo', proposal.id)).toEqual(proposal);
    expect(await records.pendingProposals('dayo')).toEqual([proposal]);
    const decided: OperatorProposal = {
      ...proposal,
      status: 'confirmed',
      decidedBy: { id: 'eze#cognito:sub-eze', kind: 'user' },
      decidedAt: '2026-12-01T10:00:00.000Z',
    };
    await records.record(changeOf('dayo', '2026-12-01T10:00:00.000Z'), { decided });
    expect(await records.proposal('dayo', proposal.id)).toEqual(decided);
    expect(await records.pendingProposals('dayo')).toEqual([]);
  });

  it('refuses to decide a proposal twice, and records nothing of the second decision', async () => {
    const records = await make();
    const proposal = proposalOf('femi');
    await records.record(changeOf('femi', '2026-12-01T09:00:00.000Z'), { proposal });
    const confirmed: OperatorProposal = { ...proposal, status: 'confirmed' };
    await records.record(changeOf('femi', '2026-12-01T10:00:00.000Z'), { decided: confirmed });
    const second = changeOf('femi', '2026-12-01T11:00:00.000Z');
    await expect(
      records.record(second, { decided: { ...proposal, status: 'cancelled' } }),
    ).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect((await records.audit('femi')).map((change) => change.id)).not.toContain(second.id);
    expect((await records.proposal('femi', proposal.id))?.status).toBe('confirmed');
  });

  it('refuses a proposal whose id is taken, and a change recorded twice', async () => {
    const records = await make();
    const proposal = proposalOf('gbenga');
    const first = changeOf('gbenga', '2026-12-01T09:00:00.000Z');
    await records.record(first, { proposal });
    await expect(
      records.record(changeOf('gbenga', '2026-12-01T10:00:00.000Z'), { proposal }),
    ).rejects.toBeInstanceOf(ConcurrentModificationError);
    await expect(records.record(first)).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect(await records.audit('gbenga')).toEqual([first]);
  });
});
