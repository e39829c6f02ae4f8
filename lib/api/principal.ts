import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Principal } from '../controls/index.js';
import { assumedRoleOf, sessionNamedRole } from '../controls/index.js';
import {
  ALL_ROLES,
  type IdentitySettings,
  OPERATOR_ROLES,
  type Operator,
  type OperatorRole,
  OperatorRoleSchema,
  rolesGranted,
} from '../operators/index.js';
import * as z from '../shared/zod.js';
import { unauthenticated, validationError } from './errors.js';

export type { Operator } from '../operators/index.js';

/**
 * Header that names the caller in local mode, taken only from a request without verified claims and only where
 * `localPrincipalHeader` is `trusted` (the in-process tests; `npm start` with LOCAL_TRUST_PRINCIPAL_HEADER=1).
 */
export const LOCAL_PRINCIPAL_HEADER = 'x-ops-principal';
/** Who a local request is when it names nobody. */
export const LOCAL_DEFAULT_PRINCIPAL = 'local-operator';
/** Header that narrows a local caller's roles (comma-separated); without it a local caller holds every role. */
export const LOCAL_ROLES_HEADER = 'x-ops-roles';

const iamContext = z.lazy(() =>
  z.object({
    authorizer: z.object({
      iam: z.object({
        userArn: z.string().check(z.minLength(1)),
        // Set by API Gateway when the request was signed with credentials an identity pool issued.
        cognitoIdentity: z.optional(
          z.nullable(
            z.object({
              amr: z.optional(z.nullable(z.array(z.string()))),
              identityPoolId: z.optional(z.nullable(z.string())),
            }),
          ),
        ),
      }),
    }),
  }),
);

const localRoles = z.pipe(
  z.pipe(
    z.string(),
    z.transform((text: string) => text.split(',').map((role) => role.trim())),
  ),
  z.array(OperatorRoleSchema),
);

const localPrincipal = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  );

/**
 * The caller. In AWS the route is IAM-authorised (SigV4), so API Gateway puts the verified principal in
 * the request context; a header is never trusted there. Locally (`npm start`) the local server verifies an ID
 * token of its user pool and puts the claims where API Gateway's JWT authorizer would
 * (`requestContext.authorizer.jwt.claims`); `verifiedCaller` (lib/local/verified-caller.ts, given by `npm start`
 * and the tests) reads that person, `<username>#cognito:<sub>`, with the roles of their groups. Only a request
 * without claims may name its caller with `X-Ops-Principal`, and only where the header is trusted
 * (`localPrincipalHeader`); elsewhere it is refused with 401. Verifying and reading the claims stay local, so
 * neither a token library nor the claims' schema reaches a Lambda bundle (each is near its size limit), and this
 * stays synchronous.
 *
 * The request context of an HTTP API carries the caller's ARN (`userArn`) and ids, never the session's
 * `sts:SourceIdentity`. So a person is told apart from their role only where AWS itself vouches for them:
 * - an operator signed in to the stack's user pool, whose identity pool credentials API Gateway reports with
 *   `cognitoIdentity`: its `amr` names the user pool's `sub` (`<provider>:CognitoSignIn:<sub>`), appended as
 *   `#cognito:<sub>`, so four eyes compares persons, whichever group's role they came through;
 * - the session name of an assumed role listed in `sessionNamedRoles`: roles whose trust policy binds the
 *   session name to the person, and IAM Identity Center roles, whose session name Identity Center sets to the
 *   user's name (appended as `#<session>`).
 * Any other role's sessions are one identity (docs/controls.md, "Identity"). The stored principal keeps the whole
 * ARN, so the audit still shows the role.
 *
 * The caller's roles: in AWS those `apiRoles` grants its role (the operator groups' roles among them); locally
 * those of the token's groups, or with a trusted header every role unless `X-Ops-Roles` narrows them
 * (docs/controls.md, "Roles").
 */
export function operatorOf(
  event: APIGatewayProxyEventV2,
  mode: 'aws' | 'local',
  settings: IdentitySettings = {},
): Operator {
  if (mode === 'aws') {
    const parsed = iamContext.safeParse(event.requestContext);
    if (!parsed.success) throw unauthenticated('the request carries no IAM principal');
    const { userArn: arn, cognitoIdentity } = parsed.data.authorizer.iam;
    const assumed = assumedRoleOf(arn);
    const roles = assumed
      ? rolesGranted(settings.apiRoles ?? {}, { role: assumed.role })
      : rolesGranted(settings.apiRoles ?? {}, { user: iamUserName(arn) });
    const person = assumed && poolPerson(cognitoIdentity, settings.operatorPool);
    if (person !== undefined) return { principal: { id: `${arn}#cognito:${person}`, kind: 'user' }, roles };
    const vouched = assumed !== undefined && sessionNamedRole(assumed.role, settings.sessionNamedRoles ?? []);
    return { principal: { id: vouched ? `${arn}#${assumed.session}` : arn, kind: 'user' }, roles };
  }
  const verified = settings.verifiedCaller?.(event);
  if (verified) return verified;
  if (settings.localPrincipalHeader === 'ignored') {
    throw unauthenticated('sign in (payouts login --user NAME) and send its ID token');
  }
  return { principal: localPrincipalOf(event), roles: localRolesOf(event) };
}

/** The user pool `sub` an operators' identity pool vouches for, when the credentials came from that pool. */
function poolPerson(
  identity: { amr?: string[] | null; identityPoolId?: string | null } | null | undefined,
  pool: IdentitySettings['operatorPool'],
): string | undefined {
  if (!identity || !pool || identity.identityPoolId !== pool.identityPoolId) return undefined;
  const prefix = `${pool.userPoolProvider}:CognitoSignIn:`;
  const signIn = (identity.amr ?? []).find((entry) => entry.startsWith(prefix));
  const sub = signIn?.slice(prefix.length);
  return sub !== undefined && /^[\w-]{1,128}$/.test(sub) ? sub : undefined;
}

function iamUserName(arn: string): string {
  const match = /:user\/(?:.*\/)?([\w+=,.@-]+)$/.exec(arn);
  return match?.[1] ?? '';
}

function localPrincipalOf(event: APIGatewayProxyEventV2): Principal {
  const header = event.headers[LOCAL_PRINCIPAL_HEADER];
  if (header === undefined) return { id: LOCAL_DEFAULT_PRINCIPAL, kind: 'user' };
  const parsed = localPrincipal.safeParse(header);
  if (!parsed.success) {
    throw validationError([
      { path: 'X-Ops-Principal', message: parsed.error.issues[0]?.message ?? 'invalid' },
    ]);
  }
  return { id: parsed.data, kind: 'user' };
}

function localRolesOf(event: APIGatewayProxyEventV2): ReadonlySet<OperatorRole> {
  const header = event.headers[LOCAL_ROLES_HEADER];
  if (header === undefined) return ALL_ROLES;
  const parsed = localRoles.safeParse(header);
  if (!parsed.success) {
    throw validationError([
      { path: 'X-Ops-Roles', message: `must be roles of ${OPERATOR_ROLES.join(', ')}, comma-separated` },
    ]);
  }
  return new Set(parsed.data);
}
