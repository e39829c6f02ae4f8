import type { ConsoleApi } from './api.js';
import type { ConsoleConfig } from './config.js';
import type { Person } from './session.js';

/** The roles a person's groups give (as infra/constructs/operators.ts `OPERATOR_GROUPS`; the API decides). */
const GROUP_ROLES: Record<string, readonly string[]> = {
  admin: ['viewer', 'admin'],
  approver: ['viewer', 'approver'],
  requester: ['viewer', 'requester'],
  viewer: ['viewer'],
};

export const rolesOf = (person: Person): ReadonlySet<string> =>
  new Set(person.groups.flatMap((group) => GROUP_ROLES[group] ?? []));

/** What every page is given. */
export interface PageContext {
  readonly api: ConsoleApi;
  readonly config: ConsoleConfig;
  readonly person: Person;
  readonly roles: ReadonlySet<string>;
  /** Shows the page again (after a change). */
  readonly reload: () => void;
  /** Shows the page again with a message saying what the change did (`flash` of the next drawing). */
  readonly reloadWith: (message: string) => void;
  /** What the change that drew this page again left to say, once. */
  readonly flash: string | undefined;
  /** The controls as the shell read them for this drawing (its pause banner): one read per page shown. */
  readonly controls: Promise<ControlsView>;
  /** True while this page is the one shown: pollers stop when it is not. */
  readonly isCurrent: () => boolean;
}

export type Page = (ctx: PageContext, main: HTMLElement, param: string | undefined) => Promise<void>;

/** Is this principal id the signed-in person? (`<name>#cognito:<sub>` locally and deployed.) */
export const isMe = (ctx: PageContext, principalId: string | undefined): boolean =>
  principalId?.toLowerCase().endsWith(`#cognito:${ctx.person.sub.toLowerCase()}`) === true;

export interface Principal {
  readonly id: string;
  readonly kind: string;
}

/** `GET /controls`: the pause, the limits in force and the main wallet's use of today's cap. */
export interface ControlsView {
  readonly paused: boolean;
  readonly reason?: string;
  readonly updatedBy?: Principal;
  readonly updatedAt?: string;
  readonly limits: {
    readonly maxInstructionKobo: number;
    readonly approvalThresholdKobo: number;
    readonly secondApprovalThresholdKobo?: number;
    readonly dailyCapKobo: number;
  };
  readonly dailyCap: { readonly day: string; readonly timeZone: string; readonly mainWalletUsedKobo: number };
}
