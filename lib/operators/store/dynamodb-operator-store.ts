import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteItem,
} from '../../shared/document-client.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { storedPrincipal } from '../../shared/stored-principal.js';
import { readItem } from '../../shared/table-reads.js';
import { commitRetryingConflicts } from '../../shared/transaction-conflicts.js';
import * as z from '../../shared/zod.js';
import { operatorAccessKey } from '../access.js';
import { OPERATOR_ACTIONS, OPERATOR_GROUPS, type OperatorChange, type OperatorProposal } from '../model.js';
import type { OperatorRecords, RecordedWith } from '../records.js';

/**
 * `OPERATOR#<username>`: infra/config/key-prefixes.ts `operator`. An operator's audit (`AUDIT#<at>#<id>`, oldest
 * first) and their proposals (`PROPOSAL#<id>`) share the partition, so one Query reads either.
 */
export const operatorKeys = {
  audit: (username: string, at: string, id: string) => ({
    pk: `OPERATOR#${username.toLowerCase()}`,
    sk: `AUDIT#${at}#${id}`,
  }),
  proposal: (username: string, id: string) => ({
    pk: `OPERATOR#${username.toLowerCase()}`,
    sk: `PROPOSAL#${id}`,
  }),
  access: operatorAccessKey,
};

const Access = z.object({ groups: z.array(z.enum(OPERATOR_GROUPS)), enabled: z.boolean() });
const StoredChange = z.object({
  id: z.string(),
  username: z.string(),
  action: z.enum(OPERATOR_ACTIONS),
  actor: storedPrincipal,
  at: z.string(),
  from: Access,
  to: Access,
  reason: z.string(),
  proposalId: z.optional(z.string()),
  proposedBy: z.optional(storedPrincipal),
});
const StoredProposal = z.object({
  id: z.string(),
  username: z.string(),
  kind: z.enum(['grant', 'enable']),
  groups: z.array(z.enum(OPERATOR_GROUPS)),
  reason: z.string(),
  proposedBy: storedPrincipal,
  proposedAt: z.string(),
  status: z.enum(['pending', 'confirmed', 'cancelled']),
  decidedBy: z.optional(storedPrincipal),
  decidedAt: z.optional(z.string()),
});

/** Removes the table's own attributes from an item before it is read as a change or proposal. */
function fields(item: Record<string, unknown>): Record<string, unknown> {
  const { pk: _pk, sk: _sk, entity: _entity, ...rest } = item;
  return rest;
}

/**
 * The operators' records in the table: every change of access in its audit, written in one transaction with what
 * it changes here (a proposal's state, the disabled marker), so nothing is recorded half.
 */
export class DynamoDbOperatorStore implements OperatorRecords {
  readonly #doc: DocumentClient;

  constructor(
    dynamoDb: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(dynamoDb);
  }

  /** Records `change`; with a proposal to create or to move on from `pending`, and the marker, in the same write. */
  async record(change: OperatorChange, also: RecordedWith = {}): Promise<void> {
    const TableName = this.tableName;
    const items: TransactWriteItem[] = [
      {
        Put: {
          TableName,
          Item: {
            ...operatorKeys.audit(change.username, change.at, change.id),
            entity: 'operator-change',
            ...change,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (also.proposal) {
      items.push({
        Put: {
          TableName,
          Item: {
            ...operatorKeys.proposal(also.proposal.username, also.proposal.id),
            entity: 'operator-proposal',
            ...also.proposal,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    if (also.decided) {
      const { decided } = also;
      items.push({
        Put: {
          TableName,
          Item: {
            ...operatorKeys.proposal(decided.username, decided.id),
            entity: 'operator-proposal',
            ...decided,
          },
          // Only a pending proposal is confirmed or cancelled, once.
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending' },
        },
      });
    }
    if (also.marker?.disabled === true) {
      items.push({
        Put: {
          TableName,
          Item: {
            ...operatorKeys.access(also.marker.sub),
            entity: 'operator-access',
            disabled: true,
            username: also.marker.username,
            at: change.at,
            by: change.actor,
          },
        },
      });
    } else if (also.marker?.disabled === false) {
      items.push({ Delete: { TableName, Key: operatorKeys.access(also.marker.sub) } });
    }
    await commitRetryingConflicts(
      () => this.#doc.send(new TransactWriteCommand({ TransactItems: items })),
      () => {
        throw new ConcurrentModificationError('operator', change.username);
      },
    );
  }

  async proposal(username: string, id: string): Promise<OperatorProposal | undefined> {
    const item = await readItem(this.#doc, this.tableName, operatorKeys.proposal(username, id));
    return item ? StoredProposal.parse(fields(item)) : undefined;
  }

  /** The operator's proposals still waiting for a second admin, oldest first. */
  async pendingProposals(username: string): Promise<OperatorProposal[]> {
    const items = await this.#query(username, 'PROPOSAL#');
    return items
      .map((item) => StoredProposal.parse(fields(item)))
      .filter((proposal) => proposal.status === 'pending')
      .reverse();
  }

  /** Every change of the operator's access, oldest first (at most `limit`, newest kept). */
  async audit(username: string, limit = 100): Promise<OperatorChange[]> {
    const items = await this.#query(username, 'AUDIT#', limit);
    return items.map((item) => StoredChange.parse(fields(item))).reverse();
  }

  async #query(username: string, prefix: string, limit?: number): Promise<Record<string, unknown>[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `OPERATOR#${username.toLowerCase()}`, ':prefix': prefix },
        ConsistentRead: true,
        // Newest first, so a limit keeps the latest (the callers answer oldest first).
        ScanIndexForward: false,
        ...(limit !== undefined && { Limit: limit }),
      }),
    );
    return Items ?? [];
  }
}
