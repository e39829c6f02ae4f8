import { describe, expect, it } from 'vitest';
import { OperatorChangeForbiddenError } from '../../lib/operators/errors.js';
import { InMemoryDirectory } from '../../lib/operators/in-memory-directory.js';
import type { DirectoryUser } from '../../lib/operators/model.js';
import { OperatorService } from '../../lib/operators/operator-service.js';
import { InMemoryOperatorStore } from '../../lib/operators/store/in-memory-operator-store.js';
import { InvalidTransitionError, NotFoundError } from '../../lib/shared/errors.js';

/**
 * The operators' service against its ports' in-memory implementations: who may give and take access, in what
 * order the pool and the records are told. test/local/operators-admin.e2e.test.ts runs it against cognito-local.
 */
const ada = { id: 'ada#cognito:sub-ada', kind: 'user' } as const;
const eze = { id: 'eze#cognito:sub-eze', kind: 'user' } as const;

function userOf(username: string, overrides: Partial<DirectoryUser> = {}): DirectoryUser {
  return {
    username,
    sub: `sub-${username}`,
    enabled: true,
    status: 'CONFIRMED',
    groups: ['viewer'],
    ...overrides,
  };
}

function serviceWith(users: DirectoryUser[]) {
  const directory = new InMemoryDirectory([
    userOf('ada', { groups: ['admin'] }),
    userOf('eze', { groups: ['admin'] }),
    ...users,
  ]);
  const store = new InMemoryOperatorStore();
  let tick = 0;
  const clock = { now: () => new Date(Date.UTC(2026, 11, 1, 9, 0, tick++)) };
  return { directory, store, service: new OperatorService(directory, store, clock) };
}

describe('the operators service', () => {
  it('grants viewer at once but only proposes a group that moves money, for another admin to confirm', async () => {
    const { directory, service } = serviceWith([userOf('bola')]);
    const viewerOnly = await service
      .grant(ada, 'bola', { groups: ['viewer'], reason: 'x' })
      .catch((error) => error);
    expect(viewerOnly).toBeInstanceOf(InvalidTransitionError);
    const proposed = await service.grant(ada, 'bola', { groups: ['approver'], reason: 'approves payroll' });
    expect(proposed.applied).toBe(false);
    expect(proposed.operator.groups).toEqual(['viewer']);
    expect(directory.calls).toEqual([]);
    const proposalId = proposed.proposal?.id ?? '';
    await expect(service.confirm(ada, 'bola', proposalId)).rejects.toBeInstanceOf(
      OperatorChangeForbiddenError,
    );
    const confirmed = await service.confirm(eze, 'bola', proposalId);
    expect(confirmed.applied).toBe(true);
    expect(confirmed.operator.groups).toEqual(['viewer', 'approver']);
    expect(directory.calls).toEqual(['addToGroup bola approver']);
    await expect(service.confirm(eze, 'bola', proposalId)).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('audits every change with who, from, to and why, the confirmation naming its proposer', async () => {
    const { service } = serviceWith([userOf('chidi')]);
    const { proposal } = await service.grant(ada, 'chidi', {
      groups: ['requester'],
      reason: 'pays suppliers',
    });
    await service.confirm(eze, 'chidi', proposal?.id ?? '');
    const { audit } = await service.get('chidi');
    expect(audit.map((change) => [change.action, change.actor.id, change.reason])).toEqual([
      ['grant-proposed', ada.id, 'pays suppliers'],
      ['granted', eze.id, 'pays suppliers'],
    ]);
    expect(audit[1]?.proposedBy).toEqual(ada);
    expect(audit[1]?.from.groups).toEqual(['viewer']);
    expect(audit[1]?.to.groups).toEqual(['viewer', 'requester']);
  });

  it('lets no admin change their own groups or account', async () => {
    const { service } = serviceWith([]);
    await expect(service.revoke(ada, 'ada', { groups: ['admin'], reason: 'x' })).rejects.toBeInstanceOf(
      OperatorChangeForbiddenError,
    );
    await expect(service.disable(ada, 'ada', 'x')).rejects.toBeInstanceOf(OperatorChangeForbiddenError);
  });

  it('revokes at once: one admin may reduce access', async () => {
    const { directory, service } = serviceWith([userOf('dayo', { groups: ['approver', 'viewer'] })]);
    const result = await service.revoke(ada, 'dayo', { groups: ['approver'], reason: 'left the team' });
    expect(result.applied).toBe(true);
    expect(result.operator.groups).toEqual(['viewer']);
    expect(directory.calls).toEqual(['removeFromGroup dayo approver']);
  });

  it('records the disabled marker before the pool is told, so a failure between the two still refuses them', async () => {
    const { directory, store, service } = serviceWith([userOf('femi')]);
    const disable = directory.disable.bind(directory);
    let markedBeforePool = false;
    directory.disable = async (username) => {
      markedBeforePool = store.markers.has('sub-femi');
      await disable(username);
    };
    await service.disable(ada, 'femi', 'lost laptop');
    expect(markedBeforePool).toBe(true);
    expect((await directory.get('femi'))?.enabled).toBe(false);
  });

  it('proposes enabling an operator who holds a money group, and clears the marker once confirmed', async () => {
    const { store, service } = serviceWith([userOf('gbenga', { groups: ['approver'] })]);
    await service.disable(ada, 'gbenga', 'on leave');
    const proposed = await service.enable(ada, 'gbenga', 'back from leave');
    expect(proposed.applied).toBe(false);
    expect(store.markers.has('sub-gbenga')).toBe(true);
    await service.confirm(eze, 'gbenga', proposed.proposal?.id ?? '');
    expect(store.markers.has('sub-gbenga')).toBe(false);
    expect((await service.get('gbenga')).enabled).toBe(true);
  });

  it('invites with viewer at once and proposes the money groups asked for', async () => {
    const { directory, service } = serviceWith([]);
    const result = await service.invite(ada, {
      username: 'hauwa',
      email: 'hauwa@example.com',
      groups: ['viewer', 'approver'],
      reason: 'new approver',
    });
    expect(result.applied).toBe(false);
    expect(result.proposal?.groups).toEqual(['approver']);
    expect(directory.calls).toEqual(['create hauwa', 'addToGroup hauwa viewer']);
    await expect(
      service.invite(ada, { username: 'hauwa', email: 'h@example.com', groups: [], reason: 'again' }),
    ).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('withdraws a pending proposal, which then cannot be confirmed, and answers not found for nobody', async () => {
    const { service } = serviceWith([userOf('ike')]);
    const { proposal } = await service.grant(ada, 'ike', { groups: ['approver'], reason: 'x' });
    const cancelled = await service.cancel(ada, 'ike', proposal?.id ?? '', 'asked by mistake');
    expect(cancelled.proposal?.status).toBe('cancelled');
    await expect(service.confirm(eze, 'ike', proposal?.id ?? '')).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
    await expect(service.get('nobody')).rejects.toBeInstanceOf(NotFoundError);
  });
});
