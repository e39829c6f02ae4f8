/** What the host tells the console (`config.json` beside it): where the API is and how people sign in. */
export interface ConsoleConfig {
  /** The ops API's base URL; empty: the console's own origin (`npm start`). */
  readonly apiUrl: string;
  /** The merchant's zone: times are shown in it, with UTC on hover. */
  readonly timeZone: string;
  readonly signIn: PasswordSignInConfig | HostedSignInConfig;
}

/**
 * `npm start`: the local user pool (cognito-local), signed in with USER_PASSWORD_AUTH; the local API takes the
 * ID token as API Gateway's JWT authorizer would.
 */
export interface PasswordSignInConfig {
  readonly mode: 'password';
  readonly endpoint: string;
  readonly userPoolId: string;
  readonly clientId: string;
}

/**
 * A deployed stage: the pool's managed sign-in page (MFA as the pool requires), authorization code with PKCE;
 * the ID token is exchanged at the identity pool for the group role's credentials, which sign each API call.
 */
export interface HostedSignInConfig {
  readonly mode: 'hosted';
  readonly region: string;
  /** The pool's sign-in domain, e.g. https://payouts-prod.auth.eu-west-1.amazoncognito.com */
  readonly domain: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly identityPoolId: string;
  /** `cognito-idp.<region>.amazonaws.com/<pool id>`: the identity pool's login key for this pool. */
  readonly userPoolProviderName: string;
  /** The API's own host and the console's path to it (`/api`): what each call is signed for. */
  readonly api: { readonly host: string; readonly pathPrefix: string };
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch('config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered ${response.status}`);
  return (await response.json()) as ConsoleConfig;
}
