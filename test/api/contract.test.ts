import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../../lib/api/index.js';
import { buildOpenApiDocument } from '../../lib/api/openapi.js';
import { PROBLEM_TYPES, problemType } from '../../lib/api/problem-types.js';
import { PayoutResponseSchema } from '../../lib/api/responses/payout.js';
import { reply, route } from '../../lib/api/router.js';
import {
  ContractViolation,
  checkAnswer,
  contractDocument,
  ENFORCED_KEYWORDS,
  keywordsIn,
} from './support/contract.js';

const json = (status: number, body: unknown, contentType = 'application/json') => ({
  statusCode: status,
  headers: { 'content-type': contentType },
  body: JSON.stringify(body),
});

const payout = {
  id: '01JD0000000000000000000000',
  type: 'bank_transfer',
  status: 'succeeded',
  amount: 250_000,
  currency: 'NGN',
  narration: 'supplier invoice 2041',
  beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
  metadata: {},
  idempotencyKey: 'k-1',
  origin: 'api',
  requestedBy: { id: 'alice', kind: 'user' },
  submissionCount: 1,
  createdAt: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:00:01.000Z',
};

const violation = (run: () => void): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof ContractViolation) return error.message;
    throw error;
  }
  throw new Error('no contract violation');
};

describe('the contract in docs/openapi.json', () => {
  it('uses only JSON Schema keywords the response checker enforces', () => {
    const responseSchemas = Object.values(contractDocument.paths).flatMap((methods) =>
      Object.values(methods).flatMap((operation) =>
        Object.values(operation.responses).flatMap((response) =>
          Object.values(response.content).map((media) => media.schema),
        ),
      ),
    );
    const used = keywordsIn([...responseSchemas, ...Object.values(contractDocument.components.schemas)]);
    expect([...used].filter((keyword) => !ENFORCED_KEYWORDS.has(keyword))).toEqual([]);
  });

  it('gives every response of every route a schema generated from the route, and every status a schema', () => {
    for (const route of apiRoutes) {
      const operation = contractDocument.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      for (const [status, answer] of Object.entries(route.responses)) {
        const mediaType = answer.mediaType ?? 'application/json';
        expect(operation?.responses[status]?.content[mediaType]?.schema).toBeDefined();
      }
      for (const response of Object.values(operation?.responses ?? {})) {
        for (const media of Object.values(response.content)) expect(media.schema).not.toEqual({});
        for (const media of Object.values(response.content))
          expect(media.schema).not.toEqual({ type: 'object' });
      }
    }
  });

  it('fails the build of the document for a route without an example, naming it', () => {
    const undocumented = route({
      method: 'GET',
      path: '/nothing-here',
      operationId: 'nothingHere',
      summary: 'nothing',
      cli: { words: ['nothing', 'here'] },
      role: 'viewer',
      responses: { 200: { description: 'a payout', schema: PayoutResponseSchema } },
      problems: [],
      handler: async () => reply(200, payout as never),
    });
    expect(() => buildOpenApiDocument([...apiRoutes, undocumented])).toThrow(
      'GET /nothing-here (nothingHere)',
    );
  });

  it('fails the build of the document for two routes with one operationId, naming both', () => {
    const [first] = apiRoutes;
    if (!first) throw new Error('no routes');
    const twin = { ...first, method: 'PATCH' as const };
    expect(() => buildOpenApiDocument([...apiRoutes, twin])).toThrow(
      `PATCH ${first.path} and ${first.method} ${first.path} share the operationId ${first.operationId}`,
    );
  });

  it('fails the build of the document for a path parameter without a schema, naming it', () => {
    const [first] = apiRoutes.filter((candidate) => candidate.path.includes('{id}'));
    if (!first) throw new Error('no route with {id}');
    const bare = { ...first, request: { ...first.request, params: {} } };
    const others = apiRoutes.filter((candidate) => candidate !== first);
    expect(() => buildOpenApiDocument([...others, bare])).toThrow(
      `${first.method} ${first.path} declares no schema for {id}`,
    );
  });

  it('lists every problem type with its statuses and meaning', () => {
    expect(contractDocument['x-problem-types']).toEqual(
      Object.entries(PROBLEM_TYPES).map(([slug, { statuses, meaning }]) => ({
        type: problemType(slug as keyof typeof PROBLEM_TYPES),
        statuses,
        meaning,
        ...([
          'non-loopback-host',
          'cross-site-request',
          'unsupported-media-type',
          'payload-too-large',
        ].includes(slug) && { localServerOnly: true }),
      })),
    );
    for (const slug of Object.keys(PROBLEM_TYPES)) {
      expect(contractDocument.components.schemas[`Problem.${slug}`]).toBeDefined();
    }
  });

  it('has no problem type spelled outside the registry: every problem the code emits is a documented slug', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });
    const root = new URL('../../', import.meta.url).pathname;
    const spelled = [...files(join(root, 'lib')), ...files(join(root, 'functions'))].filter(
      (path) =>
        !path.endsWith(join('lib', 'api', 'problem-types.ts')) &&
        readFileSync(path, 'utf8').includes('payout-automation:problem:'),
    );
    expect(spelled).toEqual([]);
  });
});

describe('the response checker the API tests run every answer through', () => {
  it('accepts a documented answer', () => {
    expect(() => checkAnswer('GET', '/payouts/01JD0000000000000000000000', json(200, payout))).not.toThrow();
  });

  it('fails an undocumented status, naming the route and the status', () => {
    expect(violation(() => checkAnswer('GET', '/payouts/abc', json(202, payout)))).toBe(
      'GET /payouts/{id} answered 202, which docs/openapi.json does not document',
    );
  });

  it('fails a body that differs, naming the route, the status and the path of the mismatch', () => {
    const message = violation(() =>
      checkAnswer(
        'GET',
        '/payouts/abc',
        json(200, { ...payout, beneficiary: { ...payout.beneficiary, bankCode: 58 } }),
      ),
    );
    expect(message).toContain('GET /payouts/{id} answered 200');
    expect(message).toContain('at beneficiary.bankCode');
  });

  it('fails a field the document does not name', () => {
    const message = violation(() => checkAnswer('GET', '/payouts/abc', json(200, { ...payout, version: 3 })));
    expect(message).toContain('GET /payouts/{id} answered 200');
    expect(message).toContain('version');
  });

  it('fails a problem type the route does not declare for that status', () => {
    const problem = { type: problemType('payouts-paused'), title: 'Paused', status: 409, detail: 'paused' };
    const message = violation(() =>
      checkAnswer('POST', '/payouts/abc/cancel', json(409, problem, 'application/problem+json')),
    );
    expect(message).toContain('POST /payouts/{id}/cancel answered 409');
  });

  it('fails an answer whose content type is not documented for the status', () => {
    expect(
      violation(() => checkAnswer('GET', '/controls', json(200, { paused: false }, 'text/plain'))),
    ).toContain('GET /controls answered 200 as text/plain');
  });

  it('holds the router’s own answers to its not-found and method-not-allowed problems', () => {
    const notFound = { type: problemType('not-found'), title: 'Not found', status: 404, detail: 'no route' };
    expect(() =>
      checkAnswer('GET', '/nowhere', json(404, notFound, 'application/problem+json')),
    ).not.toThrow();
    expect(
      violation(() => checkAnswer('DELETE', '/payouts', json(404, notFound, 'application/problem+json'))),
    ).toContain('DELETE /payouts (no route) answered 404');
  });
});
