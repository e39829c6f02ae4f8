import { IdempotencyKeySchema } from '../payouts/index.js';
import * as z from '../shared/zod.js';
import { apiRoutes } from './index.js';
import examples from './openapi-examples.json' with { type: 'json' };
import { generateSchemas } from './openapi-responses.js';
import { LOCAL_SERVER_PROBLEMS, PROBLEM_SLUGS, PROBLEM_TYPES, problemType } from './problem-types.js';
import { pathPattern, type Route } from './router.js';

type JsonSchema = Record<string, unknown>;

/** The request side of a schema, as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without `$schema`. */
function jsonSchema(schema: z.ZodMiniType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

/** One OpenAPI query parameter per property of a strict query-string schema. */
function queryParameters(schema: z.ZodMiniType): JsonSchema[] {
  const object = jsonSchema(schema);
  const properties = z.record(z.string(), z.record(z.string(), z.unknown())).parse(object.properties ?? {});
  const required = new Set(z.array(z.string()).parse(object.required ?? []));
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

/** One example per operation, by operationId: the request body where the operation takes one, else an answer. */
export type OperationExample =
  | { readonly request: unknown }
  | { readonly response: { readonly status: number; readonly body: unknown } };

/** The examples of lib/api/openapi-examples.json (a test checks each against its route's schema). */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = examples;

/**
 * A route's operation as the document states it: its words, parameters and request body, all from the route
 * (lib/api/router.ts, `Route`), with its example.
 */
function operationOf(route: Route, responses: Record<string, unknown>): Record<string, unknown> {
  const input = route.request ?? {};
  const example = OPERATION_EXAMPLES[route.operationId];
  if (!example)
    throw new Error(
      `${route.method} ${route.path} (${route.operationId}) has no example in lib/api/openapi-examples.json`,
    );
  const parameters = [
    ...pathPattern(route.path).names.map((name) => {
      const schema = input.params?.[name];
      if (!schema) throw new Error(`${route.method} ${route.path} declares no schema for {${name}}`);
      return { name, in: 'path', required: true, schema: jsonSchema(schema) };
    }),
    ...(input.idempotencyKey
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: input.idempotencyKey === 'required',
            schema: jsonSchema(IdempotencyKeySchema),
          },
        ]
      : []),
    ...(input.query ? queryParameters(input.query) : []),
  ];
  const body = input.body;
  const requestBody = body && {
    required: body.required !== false,
    content: {
      'application/json': {
        schema: jsonSchema(body.schema),
        ...('request' in example && { example: example.request }),
      },
      ...(body.csv && { 'text/csv': { schema: jsonSchema(body.csv) } }),
    },
  };
  return {
    operationId: route.operationId,
    ...(route.summary && { summary: route.summary }),
    ...(route.description && { description: route.description }),
    ...(parameters.length > 0 && { parameters }),
    ...(requestBody && { requestBody }),
    // The role the router requires (docs/controls.md, "Roles"), for clients and the console to read.
    'x-operator-role': route.role,
    responses: 'response' in example ? withExample(responses, example.response) : responses,
  };
}

/** The responses with the example answer set on its status's first media type. */
function withExample(
  responses: Record<string, unknown>,
  example: { readonly status: number; readonly body: unknown },
): Record<string, unknown> {
  const answer = z
    .object({ description: z.string(), content: z.record(z.string(), z.record(z.string(), z.unknown())) })
    .parse(responses[String(example.status)]);
  const [mediaType, media] = Object.entries(answer.content)[0] ?? [];
  if (!mediaType) throw new Error(`no answer ${example.status} for the example`);
  return {
    ...responses,
    [String(example.status)]: {
      ...answer,
      content: { ...answer.content, [mediaType]: { ...media, example: example.body } },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the ops API, generated from the zod schemas the code uses: the request schemas
 * that validate requests, and the response schemas the handlers' answers are typed by (each route's
 * `responses` and `problems`), each operation's words and request side from its route. `npm run openapi` writes
 * it to docs/openapi.json; a test fails when that file is stale, when an operation has no example, and when an
 * API test sees an answer the document does not allow.
 */
export function buildOpenApiDocument(routes: readonly Route[] = apiRoutes) {
  const generated = generateSchemas(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Map<string, Route>();
  for (const route of routes) {
    const other = operationIds.get(route.operationId);
    if (other) {
      throw new Error(
        `${route.method} ${route.path} and ${other.method} ${other.path} share the operationId ${route.operationId}`,
      );
    }
    operationIds.set(route.operationId, route);
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: operationOf(route, generated.responsesOf(route)),
    };
  }
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Payout automation ops API',
      version: '0.1.0',
      description:
        'JSON API for operating payouts. Machines and the CLI sign every call with SigV4 (`awsSigV4`: IAM auth, ' +
        "the caller's IAM principal recorded); operators sign in to the operators' user pool, and their calls carry " +
        'their identity-pool credentials (SigV4, the console and the CLI) or, on `npm start` only, their ID token ' +
        '(`operatorIdToken`). Each operation names the role it needs (`x-operator-role`). ' +
        'Errors are application/problem+json (RFC 9457): `x-problem-types` lists every problem type with its ' +
        'statuses and meaning, and each operation names the ones it answers (any may also answer `internal`, 500). Free text a client writes (narrations, account names, ' +
        'notes, reasons) is printable, NFC-normalised text that never holds a payout marker po_<id>. Locally ' +
        '(npm start) the server takes only requests a local client sends: Host 127.0.0.1, localhost or [::1] with ' +
        'its port (else 421), no Origin but its own (else 403), and Content-Type application/json (or text/csv for the ' +
        'CSV upload) on every request but GET (else 415).',
    },
    // Where the API answers, by configuration: the port npm start was given, a stage's API id and region (its
    // stack output OpsApiUrl), or a stage's console origin (its output ConsoleUrl), whose /api/* is this API.
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        description: 'npm start',
        variables: { port: { default: '3000', description: 'OPS_PORT' } },
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: 'a deployed stage (the stack output OpsApiUrl)',
        variables: {
          apiId: { default: 'apiid', description: 'the HTTP API id' },
          region: { default: 'eu-west-1', description: "the stage's region" },
        },
      },
      {
        url: 'https://{distribution}.cloudfront.net/api',
        description: "a deployed stage's console origin (the stack output ConsoleUrl)",
        variables: {
          distribution: { default: 'd111111abcdef8', description: 'the CloudFront domain label' },
        },
      },
    ],
    security: [{ awsSigV4: [] }, { operatorIdToken: [] }],
    paths,
    components: {
      schemas: generated.components,
      securitySchemes: {
        awsSigV4: {
          type: 'apiKey',
          name: 'Authorization',
          in: 'header',
          description:
            "AWS Signature Version 4 for service execute-api (IAM auth): a machine role with a caller policy, or an operator's identity-pool credentials",
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
        operatorIdToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'npm start only: the ID token of an operator of the local user pool (payouts login, then payouts token)',
        },
      },
    },
    'x-problem-types': PROBLEM_SLUGS.map((slug) => ({
      type: problemType(slug),
      statuses: [...PROBLEM_TYPES[slug].statuses],
      meaning: PROBLEM_TYPES[slug].meaning,
      ...(LOCAL_SERVER_PROBLEMS.some((local) => local === slug) && { localServerOnly: true }),
    })),
  };
}
