import { describe, expect, it } from 'vitest';
import { signingUrlOf } from '../../lib/console/app/signing-url.js';
import { buildConsole, CONSOLE_SCRIPT_BUDGET_BYTES, contentSecurityPolicy } from '../../lib/console/index.js';

describe('the console as built', () => {
  const files = buildConsole();

  it('is one page, one stylesheet and one script within its budget', () => {
    expect([...files.keys()].sort()).toEqual(['console.css', 'console.js', 'index.html']);
    expect(files.get('console.js')?.body.length).toBeLessThanOrEqual(CONSOLE_SCRIPT_BUDGET_BYTES);
  });

  it('loads its script and style from its own origin only, with no inline script for the CSP to allow', () => {
    const html = files.get('index.html')?.body.toString() ?? '';
    expect(html).toContain('<script type="module" src="console.js"></script>');
    expect(html).not.toMatch(/<script>(?!<)/);
    expect(html).not.toMatch(/ on\w+=/);
    expect(html).not.toMatch(/style=/);
  });

  it('never stores a token: the script touches no localStorage, and sessionStorage only for the sign-in code verifier', () => {
    const script = files.get('console.js')?.body.toString() ?? '';
    expect(script).not.toContain('localStorage');
    expect(script).not.toContain('document.cookie');
    expect(script).not.toContain('innerHTML');
  });

  it('allows requests only to itself and the origins it is given', () => {
    expect(contentSecurityPolicy({ connect: ['https://pool.example'] })).toContain(
      "connect-src 'self' https://pool.example",
    );
    expect(contentSecurityPolicy({ connect: [] })).toContain("default-src 'none'");
  });
});

describe('a deployed console signs each call for the API itself', () => {
  const api = { host: 'abc123.execute-api.eu-west-1.amazonaws.com', pathPrefix: '/api' };

  it('signs for the API host and the path the API serves, with the query as sent', () => {
    const signed = signingUrlOf(new URL('https://d1.cloudfront.net/api/payouts/01K/approve?x=1&y=2'), api);
    expect(signed.toString()).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com/payouts/01K/approve?x=1&y=2',
    );
  });

  it('strips the prefix only as a whole segment, as the distribution does', () => {
    expect(signingUrlOf(new URL('https://d1.cloudfront.net/apiary'), api).pathname).toBe('/apiary');
  });
});
