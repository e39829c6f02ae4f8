/**
 * Static credentials and region the local engines (DynamoDB Local, the local SQS stand-in) accept; never used
 * against AWS. Kept apart from lib/local so that the runtime, which every Lambda bundle carries, can name them
 * without bundling the DynamoDB Local launcher.
 */
export const localAwsConfig = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;
