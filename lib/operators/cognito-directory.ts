import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  type CognitoIdentityProviderClient,
  ListUsersCommand,
  ListUsersInGroupCommand,
  type UserType,
} from '@aws-sdk/client-cognito-identity-provider';
import { NotFoundError } from '../shared/errors.js';
import type { OperatorDirectory } from './directory.js';
import { DirectoryError } from './errors.js';
import { type DirectoryUser, OPERATOR_GROUPS, type OperatorGroup } from './model.js';

const isGroup = (name: string | undefined): name is OperatorGroup =>
  OPERATOR_GROUPS.some((group) => group === name);

const attribute = (attributes: UserType['Attributes'], name: string) =>
  attributes?.find((one) => one.Name === name)?.Value;

function userOf(
  user: Pick<UserType, 'Username' | 'Attributes' | 'Enabled' | 'UserStatus' | 'UserCreateDate'>,
  groups: readonly OperatorGroup[],
): DirectoryUser {
  const email = attribute(user.Attributes, 'email');
  const created = user.UserCreateDate;
  return {
    username: user.Username ?? '',
    ...(email !== undefined && { email }),
    sub: attribute(user.Attributes, 'sub') ?? '',
    enabled: user.Enabled !== false,
    status: user.UserStatus ?? 'UNKNOWN',
    // In the order of OPERATOR_GROUPS, whatever order the pool answers in.
    groups: OPERATOR_GROUPS.filter((group) => groups.includes(group)),
    ...(created instanceof Date && !Number.isNaN(created.getTime()) && { createdAt: created.toISOString() }),
  };
}

/**
 * The operators' user pool through the Cognito user pools API (`cognito-idp`): the IAM actions these calls need
 * are the ones infra/handlers.ts grants the function serving `/operators` on the pool's ARN, and no other.
 * Locally the client's endpoint is cognito-local's.
 *
 * @example new CognitoDirectory(new CognitoIdentityProviderClient({ endpoint }), pool.userPoolId)
 */
export class CognitoDirectory implements OperatorDirectory {
  constructor(
    private readonly client: Pick<CognitoIdentityProviderClient, 'send'>,
    private readonly userPoolId: string,
  ) {}

  async list(): Promise<DirectoryUser[]> {
    const UserPoolId = this.userPoolId;
    const users: UserType[] = [];
    let token: string | undefined;
    do {
      const page = await this.#call('ListUsers', () =>
        this.client.send(new ListUsersCommand({ UserPoolId, ...(token && { PaginationToken: token }) })),
      );
      users.push(...(page.Users ?? []));
      token = page.PaginationToken;
    } while (token);
    // One listing per group (four calls) rather than one per user.
    const groupsOf = new Map<string, OperatorGroup[]>();
    for (const group of OPERATOR_GROUPS) {
      let next: string | undefined;
      do {
        const page = await this.#call('ListUsersInGroup', () =>
          this.client.send(
            new ListUsersInGroupCommand({ UserPoolId, GroupName: group, ...(next && { NextToken: next }) }),
          ),
        );
        for (const user of page.Users ?? []) {
          const name = user.Username ?? '';
          groupsOf.set(name, [...(groupsOf.get(name) ?? []), group]);
        }
        next = page.NextToken;
      } while (next);
    }
    return users
      .map((user) => userOf(user, groupsOf.get(user.Username ?? '') ?? []))
      .sort((a, b) => a.username.localeCompare(b.username));
  }

  async get(username: string): Promise<DirectoryUser | undefined> {
    const UserPoolId = this.userPoolId;
    let user: Awaited<ReturnType<typeof this.getUser>>;
    try {
      user = await this.getUser(username);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
    const groups = await this.#call('AdminListGroupsForUser', () =>
      this.client.send(new AdminListGroupsForUserCommand({ UserPoolId, Username: username })),
    );
    const names = (groups.Groups ?? []).map((group) => group.GroupName).filter(isGroup);
    return userOf({ ...user, Attributes: user.UserAttributes }, names);
  }

  private getUser(username: string) {
    return this.#call('AdminGetUser', () =>
      this.client.send(new AdminGetUserCommand({ UserPoolId: this.userPoolId, Username: username })),
    );
  }

  async create(username: string, email: string): Promise<DirectoryUser> {
    const created = await this.#call('AdminCreateUser', () =>
      this.client.send(
        new AdminCreateUserCommand({
          UserPoolId: this.userPoolId,
          Username: username,
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
          ],
          DesiredDeliveryMediums: ['EMAIL'],
        }),
      ),
    );
    return userOf(created.User ?? { Username: username }, []);
  }

  async addToGroup(username: string, group: OperatorGroup): Promise<void> {
    await this.#call('AdminAddUserToGroup', () =>
      this.client.send(
        new AdminAddUserToGroupCommand({ UserPoolId: this.userPoolId, Username: username, GroupName: group }),
      ),
    );
  }

  async removeFromGroup(username: string, group: OperatorGroup): Promise<void> {
    await this.#call('AdminRemoveUserFromGroup', () =>
      this.client.send(
        new AdminRemoveUserFromGroupCommand({
          UserPoolId: this.userPoolId,
          Username: username,
          GroupName: group,
        }),
      ),
    );
  }

  async disable(username: string): Promise<void> {
    await this.#call('AdminDisableUser', () =>
      this.client.send(new AdminDisableUserCommand({ UserPoolId: this.userPoolId, Username: username })),
    );
  }

  async enable(username: string): Promise<void> {
    await this.#call('AdminEnableUser', () =>
      this.client.send(new AdminEnableUserCommand({ UserPoolId: this.userPoolId, Username: username })),
    );
  }

  /** One call, its refusal as a DirectoryError (or NotFoundError for an unknown user) naming the operation. */
  async #call<T>(operation: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      const type = error instanceof Error ? error.name : 'Error';
      if (type === 'UserNotFoundException')
        throw new NotFoundError('operator', '', { cause: error, detail: 'no operator has this username' });
      throw new DirectoryError(operation, type, { cause: error });
    }
  }
}
