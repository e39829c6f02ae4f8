import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { assumedRoleOf, sessionNamedRole } from '../payouts/identity.js';
import type { Principal } from '../payouts/model.js';
import * as z from '../shared/zod.js';
import { unauthenticated, validationError } from './errors.js';

/** Header that names the caller in local mode only (`npm start`, tests). */
export const LOCAL_PRINCIPAL_HEADER = 'x-ops-principal';
/** Who a local request is when it names nobody. */
export const LOCAL_DEFAULT_PRINCIPAL = 'local-operator';

const iamContext = z.lazy(() =>
  z.object({
    authorizer: z.object({ iam: z.object({ userArn: z.string().check(z.minLength(1)) }) }),
  }),
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
 * the request context; a header is never trusted there. Locally the `X-Ops-Principal` header stands in,
 * so the four-eyes rule can be exercised by two "people".
 *
 * The request context of an HTTP API carries the caller's ARN (`userArn`) and ids, never the session's
 * `sts:SourceIdentity`. So the session name of an assumed role is vouched for (appended as `#<session>`, which
 * `identityOf` takes as the person, whichever role they came through) only for the roles listed in
 * `sessionNamedRoles`: roles whose trust policy binds the session name to the person, and IAM Identity Center
 * roles, whose session name Identity Center sets to the user's name. Any other role's sessions are one identity
 * (docs/controls.md, "Identity"). The stored principal keeps the whole ARN, so the audit still shows the role.
 */
export function principalOf(
  event: APIGatewayProxyEventV2,
  mode: 'aws' | 'local',
  sessionNamedRoles: readonly string[] = [],
): Principal {
  if (mode === 'aws') {
    const parsed = iamContext.safeParse(event.requestContext);
    if (!parsed.success) throw unauthenticated('the request carries no IAM principal');
    const arn = parsed.data.authorizer.iam.userArn;
    const assumed = assumedRoleOf(arn);
    const vouched = assumed !== undefined && sessionNamedRole(assumed.role, sessionNamedRoles);
    return { id: vouched ? `${arn}#${assumed.session}` : arn, kind: 'user' };
  }
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
