import * as z from '../shared/zod.js';

/** The error cognito-local (and Cognito) answer: `__type` names it; the message never holds the password sent. */
const CognitoFault = z.object({ __type: z.optional(z.string()), message: z.optional(z.string()) });

/** Thrown when the Cognito API refuses a call; `type` is Cognito's error name (`NotAuthorizedException` …). */
export class CognitoCallError extends Error {
  override readonly name = 'CognitoCallError';
  readonly code = 'COGNITO_CALL_FAILED';
  constructor(
    readonly operation: string,
    readonly type: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${type}${message ? ` (${message})` : ''}`, options);
  }
}

/**
 * One call of the Cognito user pools API (`x-amz-json-1.1`), as the SDK would send it: the CLI's sign-in and
 * the seeding above need three operations, not a client library.
 */
export async function cognitoCall(endpoint: string, operation: string, body: object): Promise<unknown> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `AWSCognitoIdentityProviderService.${operation}`,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = {};
  }
  if (!response.ok) {
    const fault = CognitoFault.safeParse(parsed);
    const type = fault.success ? (fault.data.__type ?? `HTTP ${response.status}`) : `HTTP ${response.status}`;
    throw new CognitoCallError(
      operation,
      type.replace(/^.*#/, ''),
      fault.success ? (fault.data.message ?? '') : '',
    );
  }
  return parsed;
}
