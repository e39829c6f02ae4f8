import type { OperatorDirectory } from './directory.js';
import { DirectoryError } from './errors.js';
import type { DirectoryUser, OperatorGroup } from './model.js';

/**
 * A user pool in memory, for the operators' service's unit tests: the Cognito adapter (cognito-directory.ts) is
 * tested against cognito-local. It keeps what the service asked of it, in order, so a test can tell what reached
 * the pool before what was recorded.
 */
export class InMemoryDirectory implements OperatorDirectory {
  readonly #users = new Map<string, DirectoryUser>();
  /** Every change the pool was asked for, oldest first (`disable ada`, `addToGroup ada approver`, …). */
  readonly calls: string[] = [];
  #subs = 0;

  constructor(users: readonly DirectoryUser[] = []) {
    for (const user of users) this.#users.set(user.username, user);
  }

  async list(): Promise<DirectoryUser[]> {
    return [...this.#users.values()];
  }

  async get(username: string): Promise<DirectoryUser | undefined> {
    return this.#users.get(username);
  }

  async create(username: string, email: string): Promise<DirectoryUser> {
    if (this.#users.has(username)) throw new DirectoryError('AdminCreateUser', 'UsernameExistsException');
    this.#subs += 1;
    const user: DirectoryUser = {
      username,
      email,
      sub: `in-memory-sub-${this.#subs}`,
      enabled: true,
      status: 'FORCE_CHANGE_PASSWORD',
      groups: [],
    };
    this.#users.set(username, user);
    this.calls.push(`create ${username}`);
    return user;
  }

  async addToGroup(username: string, group: OperatorGroup): Promise<void> {
    const user = this.#existing(username, 'AdminAddUserToGroup');
    this.#users.set(username, { ...user, groups: [...new Set([...user.groups, group])] });
    this.calls.push(`addToGroup ${username} ${group}`);
  }

  async removeFromGroup(username: string, group: OperatorGroup): Promise<void> {
    const user = this.#existing(username, 'AdminRemoveUserFromGroup');
    this.#users.set(username, { ...user, groups: user.groups.filter((held) => held !== group) });
    this.calls.push(`removeFromGroup ${username} ${group}`);
  }

  async disable(username: string): Promise<void> {
    this.#users.set(username, { ...this.#existing(username, 'AdminDisableUser'), enabled: false });
    this.calls.push(`disable ${username}`);
  }

  async enable(username: string): Promise<void> {
    this.#users.set(username, { ...this.#existing(username, 'AdminEnableUser'), enabled: true });
    this.calls.push(`enable ${username}`);
  }

  #existing(username: string, operation: string): DirectoryUser {
    const user = this.#users.get(username);
    if (!user) throw new DirectoryError(operation, 'UserNotFoundException');
    return user;
  }
}
