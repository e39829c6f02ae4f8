import { describe, expect, it } from 'vitest';
import { withoutRouteDocs } from '../../infra/bundling/route-docs.js';

const source = `import { route } from '../router.js';

export const routes = [
  route({
    method: 'GET',
    path: '/payouts/{id}',
    operationId: 'getPayout',
    summary:
      'A payout, with its audit: a summary wrap',
    request: { params: { id: ResourceIdSchema } },
    cli: {
      words: ['payouts', 'get'],
      summary: 'a payout with its audit',
    },
    role: 'viewer',
    responses: { 200: { description: 'the payout', schema: PayoutDetailSchema } },
    problems: ['not-found'],
    handler: getPayout,
  }),
];
const other = call({ summary: 'not a route' });
`;

describe('the route documentation left out of the Lambda bundles', () => {
  const stripped = withoutRouteDocs(source);

  it('blanks the operationId, summary, request and cli of each route({...}), and keeps what the router reads', () => {
    for (const gone of [
      'operationId',
      'summary wrap',
      'ResourceIdSchema',
      'words',
      'a payout with its audit',
    ]) {
      expect(stripped).not.toContain(gone);
    }
    for (const kept of ["method: 'GET'", "path: '/payouts/{id}'", "role: 'viewer'", 'handler: getPayout']) {
      expect(stripped).toContain(kept);
    }
    expect(stripped).toContain("description: 'the payout'");
  });

  it('leaves every other call alone', () => {
    expect(stripped).toContain("call({ summary: 'not a route' })");
  });

  it('keeps every line where it was, so the source map points at the real source', () => {
    expect(stripped.length).toBe(source.length);
    const lines = source.split('\n');
    stripped.split('\n').forEach((line, index) => {
      if (line.trim() !== '') expect(line).toBe(lines[index]);
    });
  });
});
