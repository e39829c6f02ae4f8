import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * No Secrets Manager engine runs locally, so this answers GetSecretValue over real HTTP on 127.0.0.1 with
 * the JSON the operator would have put in each secret, for the real SDK client (and its middleware) to read.
 */
export async function startSecretsManagerStub(values: ReadonlyMap<string, string>) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        SecretId?: string;
      };
      const value = SecretId === undefined ? undefined : values.get(SecretId);
      res.writeHead(value === undefined ? 400 : 200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify(
          value === undefined
            ? { __type: 'ResourceNotFoundException', message: 'no such secret' }
            : { ARN: SecretId, Name: SecretId, SecretString: value, VersionId: 'v1' },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
