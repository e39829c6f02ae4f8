import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildConsole, consoleSecurityHeaders } from '../console/index.js';

/** Where `npm start` serves the console, beside the API on the same origin (so it needs no CORS). */
export const LOCAL_CONSOLE_PATH = '/console/';

/** A static site the local server answers before the API: a result for its paths, undefined for the API's. */
export type LocalSite = (method: string, path: string) => APIGatewayProxyStructuredResultV2 | undefined;

/**
 * The console as `npm start` serves it: built once at start, its `config.json` naming the local pool (password
 * sign-in, cognito-local) and this origin's API, under the same security headers as CloudFront sends.
 */
export function localConsoleSite(
  signIn: { endpoint: string; userPoolId: string; clientId: string },
  timeZone: string,
): LocalSite {
  const files = buildConsole();
  const config = { apiUrl: '', timeZone, signIn: { mode: 'password', ...signIn } };
  files.set('config.json', {
    body: Buffer.from(JSON.stringify(config)),
    contentType: 'application/json',
  });
  const headers = consoleSecurityHeaders({ connect: [signIn.endpoint] });
  return (method, path): APIGatewayProxyStructuredResultV2 | undefined => {
    if (path === '/console') {
      return { statusCode: 302, headers: { location: LOCAL_CONSOLE_PATH }, body: '' };
    }
    if (!path.startsWith(LOCAL_CONSOLE_PATH)) return undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      return { statusCode: 405, headers: { allow: 'GET, HEAD' }, body: '' };
    }
    const file = files.get(path.slice(LOCAL_CONSOLE_PATH.length) || 'index.html');
    if (!file)
      return { statusCode: 404, headers: { 'content-type': 'text/plain', ...headers }, body: 'not found' };
    return {
      statusCode: 200,
      headers: { 'content-type': file.contentType, 'cache-control': 'no-cache', ...headers },
      body: method === 'HEAD' ? '' : file.body.toString('base64'),
      isBase64Encoded: true,
    };
  };
}
