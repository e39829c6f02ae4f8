/**
 * The settings an AWS SDK client would otherwise look up on its first call: in the environment, then in
 * ~/.aws/config and ~/.aws/credentials, files a Lambda never has. Each lookup that reaches the files is an
 * asynchronous read in the middle of the first request, where other work then runs before the request leaves:
 * on a cold start, the claim of the payout being sent (issue 18). Each value is the one the SDK settles on when
 * nothing is configured, so behaviour is unchanged; the region still comes from AWS_REGION, the credentials from
 * the function's role. Each client adds its own (DynamoDB: `SETTLED_CLIENT_CONFIG`, dynamodb-client.ts).
 */
export const SETTLED_SDK_CONFIG = {
  retryMode: 'standard',
  defaultsMode: 'legacy',
  useDualstackEndpoint: false,
  useFipsEndpoint: false,
  authSchemePreference: [] as string[],
  userAgentAppId: async () => undefined,
  /** Read by the signer of every request (AWS_DISABLE_CLOCK_SKEW_CORRECTION, else the files). */
  disableClockSkewCorrection: false,
} as const;
