import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Principal } from '../controls/index.js';
import { identityOf } from '../controls/index.js';

/**
 * `OPERATOR_ACCESS#<sub>`: infra/config/key-prefixes.ts `operatorAccess`. Written when an admin disables the
 * operator (lib/operators/store/dynamodb-operator-store.ts), removed when one is enabled again. Kept here, apart from the store,
 * because every API function reads it and should carry nothing else of the operators' room.
 */
export const operatorAccessKey = (sub: string) => ({
  pk: `OPERATOR_ACCESS#${sub.toLowerCase()}`,
  sk: 'ACCESS',
});

/** The user pool `sub` of a principal a pool token or identity-pool credentials named, or undefined for others. */
export function poolSubOf(principal: Principal): string | undefined {
  return /person\/cognito:([\w-]{1,128})$/.exec(identityOf(principal))?.[1];
}

/**
 * Whether a caller is an operator an admin disabled. Cognito refuses a disabled user's sign-in and refresh, but
 * an ID token or identity-pool credentials issued before stay valid until they expire (an hour); so the API
 * itself refuses them from the moment of the disable: one read by key per request of a pool person.
 */
export interface DisabledOperators {
  isDisabled(principal: Principal): Promise<boolean>;
}

export function disabledOperatorsOf(
  dynamoDb: Pick<DynamoDBClient, 'send'>,
  tableName: string,
): DisabledOperators {
  return {
    async isDisabled(principal) {
      const sub = poolSubOf(principal);
      if (sub === undefined) return false;
      const key = operatorAccessKey(sub);
      const { Item } = await dynamoDb.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: key.pk }, sk: { S: key.sk } },
          // A disable answered to its admin is in force for the next request, wherever it lands.
          ConsistentRead: true,
        }),
      );
      return Item?.disabled?.BOOL === true;
    },
  };
}
