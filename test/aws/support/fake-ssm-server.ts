import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server speaking SSM's JSON 1.1 protocol for `GetParameters`, as the real
 * `@aws-sdk/client-ssm` calls it: `POST /` with `X-Amz-Target: AmazonSSM.GetParameters`.
 * Unknown names come back in `InvalidParameters`, as SSM does.
 */
export async function startFakeSsm(parameters: Record<string, string>) {
  const calls: { names: string[]; withDecryption: boolean }[] = [];
  let failures = 0;
  let delayMs = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      const reply = (status: number, body: unknown, errorType?: string) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(errorType ? { __type: errorType, message: String(body) } : body));
      };
      if (target !== 'AmazonSSM.GetParameters')
        return reply(400, `unknown target ${String(target)}`, 'InvalidAction');
      if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256')) {
        return reply(403, 'missing signature', 'AccessDeniedException');
      }
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        Names: string[];
        WithDecryption?: boolean;
      };
      calls.push({ names: input.Names, withDecryption: input.WithDecryption === true });
      if (delayMs > 0) {
        // A slow SSM: the answer comes late (a client that gave up has closed the socket by then).
        const answer = () => {
          if (!response.destroyed) reply(200, answerTo(input.Names));
        };
        setTimeout(answer, delayMs);
        return;
      }
      if (failures > 0) {
        failures--;
        return reply(400, 'Rate exceeded', 'ThrottlingException');
      }
      if (input.Names.length > 10) return reply(400, 'at most 10 names', 'ValidationException');
      reply(200, answerTo(input.Names));
    });
  });
  const answerTo = (names: string[]) => ({
    Parameters: names
      .filter((name) => name in parameters)
      .map((name) => ({
        Name: name,
        Type: 'SecureString',
        Value: parameters[name],
        Version: 1,
        DataType: 'text',
        ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${name}`,
      })),
    InvalidParameters: names.filter((name) => !(name in parameters)),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    parameters,
    /** The next `times` calls are throttled (a non-retryable answer after the SDK's own retries). */
    failNext: (times: number) => {
      failures = times;
    },
    /** Every answer from now on comes `ms` late (0: at once again). */
    answerAfter: (ms: number) => {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
