import { startLocalUserPool, cognitoCall } from '/work/wt-login/lib/local/cognito-local.ts';
const pool = await startLocalUserPool();
console.log(pool);
const auth = await cognitoCall(pool.endpoint, 'InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: pool.clientId, AuthParameters: { USERNAME: 'bob', PASSWORD: 'bob-local-only-1' } }) as any;
console.log(Object.keys(auth), Object.keys(auth.AuthenticationResult ?? {}), auth.AuthenticationResult?.ExpiresIn);
const id = auth.AuthenticationResult.IdToken;
console.log(JSON.parse(Buffer.from(id.split('.')[1], 'base64url').toString()), JSON.parse(Buffer.from(id.split('.')[0], 'base64url').toString()));
try { await cognitoCall(pool.endpoint, 'InitiateAuth', { AuthFlow: 'USER_PASSWORD_AUTH', ClientId: pool.clientId, AuthParameters: { USERNAME: 'bob', PASSWORD: 'wrong' } }); } catch (e) { console.log(String(e)); }
await pool.stop();
