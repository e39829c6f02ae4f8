import type { AwsCall, AwsCallObserver } from '../../../lib/shared/aws-call-observer.js';
import { type IamRequest, iamRequestsFor, type ResourceNames } from './iam-requests.js';
import { platformRequests } from './platform-requests.js';
import {
  type Decision,
  type FunctionIdentity,
  type StackPolicies,
  wildcardMatches,
} from './stack-policies.js';

/** Raised where AWS would answer AccessDenied: names the function, the call, the action and the resource. */
export class IamDeniedError extends Error {
  override readonly name = 'AccessDeniedException';
  readonly code = 'IAM_PROOF_DENIED';
}

export interface ExercisedRequest extends IamRequest {
  readonly functionName: string;
  readonly call: string;
}

/**
 * Checks every AWS SDK call a handler makes against that handler's role in the synthesized template, before
 * the call is sent: a call IAM would refuse fails here the way it would fail in AWS, and is remembered.
 */
export class IamProof {
  readonly exercised: ExercisedRequest[] = [];
  readonly denials: string[] = [];
  /** The same request by the same function is decided once: the end-to-end suites repeat a few calls often. */
  readonly #decisions = new Map<string, Promise<Decision>>();
  /** Requests AWS makes with a role that is no function's (a schedule's), from `checkPlatform`. */
  readonly #roleRequests: (IamRequest & { role: string })[] = [];

  constructor(
    readonly policies: StackPolicies,
    /** Handler name (`api`) -> the function's logical id in the template. */
    readonly functionIds: ReadonlyMap<string, string>,
    readonly names: ResourceNames,
  ) {}

  identityOf(functionName: string): FunctionIdentity {
    const logicalId = this.functionIds.get(functionName);
    const identity = logicalId ? this.policies.functions.get(logicalId) : undefined;
    if (!identity) throw new Error(`no function ${functionName} in the template`);
    return identity;
  }

  /** The observer to give the runtime (or client) of one function. */
  observer(): AwsCallObserver {
    return (call) => this.check(call);
  }

  async check(call: AwsCall): Promise<void> {
    const identity = this.identityOf(call.functionName);
    for (const request of iamRequestsFor(call, this.names)) {
      const key = JSON.stringify([identity.logicalId, request]);
      let pending = this.#decisions.get(key);
      if (!pending) {
        pending = this.policies.evaluate(identity, request);
        this.#decisions.set(key, pending);
      }
      const decision = await pending;
      this.exercised.push({ ...request, functionName: call.functionName, call: call.command });
      if (!decision.allowed) {
        const message = `${call.functionName}: ${call.command} needs ${request.action} on ${request.resource}${
          Object.keys(request.context).length > 0 ? ` (${JSON.stringify(request.context)})` : ''
        }: ${decision.result}`;
        this.denials.push(message);
        throw new IamDeniedError(message);
      }
    }
  }

  /**
   * Decides every call AWS makes for the stack (platform-requests.ts): schedules, rules and API Gateway invoking
   * functions, DLQs being filled, the stream mapping reading the stream, tracing. Calls made with a function's
   * role count as exercised by that function. Returns the denials, each naming who, what and where.
   */
  async checkPlatform(): Promise<string[]> {
    const denials: string[] = [];
    const handlerOf = new Map([...this.functionIds].map(([name, id]) => [id, name]));
    for (const platform of platformRequests(this.policies.resolver.template, this.policies.resolver)) {
      const decision = await this.policies.evaluatePlatform(platform);
      const functionName = platform.functionLogicalId ? handlerOf.get(platform.functionLogicalId) : undefined;
      if (functionName) this.exercised.push({ ...platform.request, functionName, call: platform.what });
      if (platform.roleLogicalId)
        this.#roleRequests.push({ role: platform.roleLogicalId, ...platform.request });
      if (!decision.allowed) {
        const who = functionName ?? platform.roleLogicalId ?? platform.servicePrincipal ?? '?';
        denials.push(
          `${who}: ${platform.what} needs ${platform.request.action} on ${platform.request.resource}: ${decision.result}`,
        );
      }
    }
    return denials;
  }

  /**
   * For each role that is no function's (the schedules' roles), the granted (action, resource) pairs no
   * platform request used. Call after `checkPlatform`.
   */
  unusedRoleGrants(): Record<string, string[]> {
    const report: Record<string, string[]> = {};
    for (const role of new Set(this.#roleRequests.map((request) => request.role))) {
      const identity = { logicalId: role, environment: {}, ...this.policies.roleIdentity(role) };
      const used = this.#roleRequests.filter((request) => request.role === role);
      report[role] = this.policies
        .grantsOf(identity)
        .filter(
          (grant) =>
            !used.some(
              (request) =>
                wildcardMatches(grant.action, request.action, true) &&
                wildcardMatches(grant.resource, request.resource),
            ),
        )
        .map((grant) => `${grant.action} on ${grant.resource}`);
    }
    return report;
  }

  /** For each function, the granted (action, resource) pairs no exercised request used. */
  unusedGrants(functionNames: readonly string[]): Record<string, string[]> {
    const report: Record<string, string[]> = {};
    for (const functionName of functionNames) {
      const identity = this.identityOf(functionName);
      const used = this.exercised.filter((request) => request.functionName === functionName);
      report[functionName] = this.policies
        .grantsOf(identity)
        .filter(
          (grant) =>
            !used.some(
              (request) =>
                wildcardMatches(grant.action, request.action, true) &&
                wildcardMatches(grant.resource, request.resource),
            ),
        )
        .map((grant) => `${grant.action} on ${grant.resource}`);
    }
    return report;
  }
}
