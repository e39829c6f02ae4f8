import { paginateScan } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiFunctionServing } from '../../../lib/api/functions/index.js';
import { type ApiHandler, createApiHandler } from '../../../lib/api/index.js';
import type { ApiDeadlines } from '../../../lib/api/request-deadline.js';
import { apiContextFrom } from '../../../lib/api/services-from-runtime.js';
import { servedBy } from '../../../lib/local/function-attribution.js';
import { verifiedCallerOf } from '../../../lib/local/verified-caller.js';
import { type OperatorPoolSettings, operatorsOf } from '../../../lib/runtime/operators.js';
import { createRuntime, type Runtime } from '../../../lib/runtime/runtime.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../../lib/sandbox/index.js';
import type { Clock } from '../../../lib/shared/clock.js';
import { CapturingLogger } from '../../../lib/shared/logger.js';
import { createTestTable } from '../../support/dynamodb.js';
import { iamChecked } from '../../support/iam/checked-calls.js';
import { checkedAgainstContract } from './contract.js';

export interface ApiHarness {
  readonly api: ApiHandler;
  readonly runtime: Runtime;
  readonly sandbox: Sandbox;
  readonly tableName: string;
  readonly logger: CapturingLogger;
  /** Every item in the test's table, every page of it. */
  items(): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * The real router over the real runtime: a fresh DynamoDB Local table and a sandbox on a free port. Every AWS
 * call a request makes is checked against the role of the API function serving its route (the IAM proof,
 * docs/iam-proof.md).
 */
export async function startApiHarness(
  options: {
    env?: Record<string, string>;
    mode?: 'local' | 'aws';
    /**
     * Local mode: `trusted` (the default) takes `X-Ops-Principal` from a request without a verified token, as
     * these in-process tests always have; `ignored` refuses it, as `npm start` does without
     * LOCAL_TRUST_PRINCIPAL_HEADER=1.
     */
    localPrincipalHeader?: 'trusted' | 'ignored';
    sandbox?: SandboxOptions;
    /** The API's request deadlines instead of production's (small ones make a deadline test fast). */
    deadlines?: ApiDeadlines;
    clock?: Clock;
    /** The user pool the operators' routes manage (cognito-local's, as npm start passes it). */
    operatorPool?: OperatorPoolSettings;
  } = {},
): Promise<ApiHarness> {
  const table = await createTestTable('api');
  const sandbox = await startSandbox(options.sandbox);
  const logger = new CapturingLogger();
  const runtime = createRuntime(
    {
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_TOKEN: sandbox.token,
      PROVIDER_PIN: sandbox.pin,
      ...options.env,
    },
    // Calls made outside a request (a test's own setup and reads) are no function's.
    { logger, awsCalls: iamChecked(), ...(options.clock && { clock: options.clock }) },
  );
  const ctx = {
    ...apiContextFrom(runtime),
    ...(options.mode && { mode: options.mode }),
    ...(options.localPrincipalHeader && { localPrincipalHeader: options.localPrincipalHeader }),
    // As npm start: a request the local server verified a token for is the person it names.
    verifiedCaller: verifiedCallerOf,
    ...(options.deadlines && { deadlines: options.deadlines }),
    ...(options.operatorPool && { operators: operatorsOf(runtime, options.operatorPool) }),
  };
  // Every answer is checked against docs/openapi.json: an undocumented status or body fails the test.
  const api = checkedAgainstContract(asDeployed(createApiHandler(ctx)));
  return {
    api,
    runtime,
    sandbox,
    tableName: table.tableName,
    logger,
    async items() {
      // Every page: a table past 1 MB (a 10,000-row run) has items beyond the first.
      const items: Record<string, unknown>[] = [];
      for await (const page of paginateScan({ client: table.client }, { TableName: table.tableName })) {
        items.push(...(page.Items ?? []));
      }
      return items;
    },
    async close() {
      await runtime.close();
      await sandbox.close();
      table.client.destroy();
    },
  };
}

export interface EventInput {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  query?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  principal?: string;
  iamUserArn?: string;
  /** With `iamUserArn`: what API Gateway reports of credentials a Cognito identity pool issued. */
  cognitoIdentity?: { readonly amr: readonly string[]; readonly identityPoolId: string };
}

/** An API Gateway HTTP API v2 event as API Gateway builds it (header names lower-cased). */
export function apiEvent(input: EventInput): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(input.headers ?? {})) headers[name.toLowerCase()] = value;
  if (input.principal) headers['x-ops-principal'] = input.principal;
  const body =
    input.body === undefined
      ? undefined
      : typeof input.body === 'string'
        ? input.body
        : JSON.stringify(input.body);
  const requestContext = {
    accountId: '123456789012',
    apiId: 'api',
    domainName: 'api.example',
    domainPrefix: 'api',
    http: {
      method: input.method,
      path: input.path,
      protocol: 'HTTP/1.1',
      sourceIp: '127.0.0.1',
      userAgent: 'test',
    },
    requestId: 'req',
    routeKey: '$default',
    stage: '$default',
    time: new Date().toUTCString(),
    timeEpoch: Date.now(),
    ...(input.iamUserArn && {
      authorizer: {
        iam: {
          userArn: input.iamUserArn,
          ...(input.cognitoIdentity && { cognitoIdentity: input.cognitoIdentity }),
        },
      },
    }),
  };
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: input.path,
    rawQueryString: input.query ?? '',
    headers,
    requestContext,
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  };
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Calls the router and parses its answer (JSON; a text download stays a string). */
export async function call(api: ApiHandler, input: EventInput): Promise<Reply> {
  const result: APIGatewayProxyStructuredResultV2 = await api(apiEvent(input));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  return {
    status: result.statusCode ?? 200,
    headers,
    // A download (text/csv) stays text; everything else the API answers is JSON.
    body: result.body
      ? (headers['content-type'] ?? '').includes('json')
        ? JSON.parse(result.body)
        : result.body
      : undefined,
  };
}

/** A bank transfer the sandbox pays (10-digit account, a known bank code). */
export function bankTransfer(overrides: Record<string, unknown> = {}) {
  return {
    type: 'bank_transfer',
    amount: 250_000,
    currency: 'NGN',
    narration: 'supplier invoice 2041',
    beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
    ...overrides,
  };
}

/** A wallet transfer the sandbox pays: the merchant's wallet tops up its first store's float. */
export function walletTopUp(fixtures: {
  readonly merchantWalletId: string;
  readonly stores: readonly { readonly walletId: string }[];
}) {
  return {
    type: 'wallet_transfer',
    amount: 10_000,
    currency: 'NGN',
    narration: 'float top-up',
    sourceWalletId: fixtures.merchantWalletId,
    destinationWalletId: fixtures.stores[0]?.walletId,
  };
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Runs each request as the API function that serves its route in AWS (lib/api/functions), so that its AWS calls
 * are checked against that function's role (the IAM proof, docs/iam-proof.md).
 */
export function asDeployed(handler: ApiHandler): ApiHandler {
  return (event, invocation) =>
    servedBy(apiFunctionServing(event.requestContext.http.method, event.rawPath), () =>
      handler(event, invocation),
    );
}
