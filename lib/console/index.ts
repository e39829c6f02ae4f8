/**
 * The finance team's web console: its static files (built by esbuild from `app/`, a browser bundle) and the
 * security headers every host serves them with. Deployed from S3 through CloudFront (infra/constructs/console.ts);
 * served by `npm start` at /console/ (lib/local/console-site.ts). The app itself calls only the ops API.
 */
export { buildConsole, CONSOLE_SCRIPT_BUDGET_BYTES, type ConsoleFile } from './build.js';
export {
  type ConsoleOrigins,
  consoleSecurityHeaders,
  contentSecurityPolicy,
  HSTS_MAX_AGE_SECONDS,
} from './security-headers.js';
