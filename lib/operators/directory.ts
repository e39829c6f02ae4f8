import type { DirectoryUser, OperatorGroup } from './model.js';

/**
 * The user pool as the operators' service uses it: the port its Cognito adapter (cognito-directory.ts) fills in
 * AWS and, against cognito-local, in `npm start` and the tests. Every call names a user by username.
 */
export interface OperatorDirectory {
  /** Every operator of the pool with their groups, by username. */
  list(): Promise<DirectoryUser[]>;
  /** One operator with their groups, or undefined when the pool has no such user. */
  get(username: string): Promise<DirectoryUser | undefined>;
  /** Creates the user (invited: Cognito sends a temporary password to `email`) in no group. */
  create(username: string, email: string): Promise<DirectoryUser>;
  addToGroup(username: string, group: OperatorGroup): Promise<void>;
  removeFromGroup(username: string, group: OperatorGroup): Promise<void>;
  /** Refuses their sign-in and revokes their tokens in the pool (AdminDisableUser). */
  disable(username: string): Promise<void>;
  enable(username: string): Promise<void>;
}

export { DirectoryError } from './errors.js';
