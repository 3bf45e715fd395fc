import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

// `.ci/ensure-node.sh`, the part of `.ci/run` that provisions Node.js 22, run against a fake
// `node` (of a chosen version) and a fake `npm` that records how it was called and "installs"
// a node into the prefix it was given. Nothing is downloaded.

const root = path.resolve(import.meta.dirname, '../..');
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function executable(file: string, script: string) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
}

/** A machine whose `node` is `version`; npm's node@22 installs `installs` (or nothing). */
async function machine(options: { version?: string; installs?: string; alreadyInstalled?: string }) {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-ensure-node-'));
  directories.push(directory);
  const bin = path.join(directory, 'bin');
  const prefix = path.join(directory, 'node22');
  const npmLog = path.join(directory, 'npm.log');
  await mkdir(bin);
  if (options.version) await executable(path.join(bin, 'node'), `echo ${options.version}`);
  if (options.alreadyInstalled) {
    await executable(path.join(prefix, 'bin', 'node'), `echo ${options.alreadyInstalled}`);
  }
  // Records its arguments; `install … --prefix DIR …` puts a node into DIR/bin.
  await executable(
    path.join(bin, 'npm'),
    [
      `echo "$*" >> ${npmLog}`,
      'while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix="$2"; shift; done',
      options.installs
        ? `mkdir -p "$prefix/bin" && printf '#!/bin/sh\\necho ${options.installs}\\n' > "$prefix/bin/node" && chmod +x "$prefix/bin/node"`
        : 'true',
    ].join('\n'),
  );

  const run = async () => {
    const script = 'set -euo pipefail; source .ci/ensure-node.sh; echo "node=$(command -v node) $(node -v)"';
    try {
      const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
        cwd: root,
        env: { PATH: `${bin}:/usr/bin:/bin`, KAIWA_NODE_PREFIX: prefix },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const npmCalls = async () =>
    (await readFile(npmLog, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
  return { bin, prefix, run, npmCalls };
}

describe('.ci/ensure-node.sh', () => {
  it.each(['v20.20.2', 'v22.12.0'])(
    'installs node@22 into its own prefix and puts it first on PATH when node is %s',
    async (version) => {
      const fake = await machine({ version, installs: 'v22.23.3' });

      const result = await fake.run();

      expect(result.code).toBe(0);
      expect(await fake.npmCalls()).toEqual([
        `install -g --prefix ${fake.prefix} --no-audit --no-fund node@22`,
      ]);
      expect(result.stdout).toContain(`older than 22.13: installing node@22 into ${fake.prefix}`);
      expect(result.stdout).toContain(`node=${fake.prefix}/bin/node v22.23.3`);
    },
  );

  it('installs it when there is no node at all', async () => {
    const fake = await machine({ installs: 'v22.23.3' });

    const result = await fake.run();

    expect(result.code).toBe(0);
    expect(await fake.npmCalls()).toHaveLength(1);
    expect(result.stdout).toContain(`node=${fake.prefix}/bin/node v22.23.3`);
  });

  it.each(['v22.13.0', 'v24.1.0'])('keeps the machine’s node when it is %s', async (version) => {
    const fake = await machine({ version, installs: 'v22.23.3' });

    const result = await fake.run();

    expect(result.code).toBe(0);
    expect(await fake.npmCalls()).toEqual([]);
    expect(result.stdout).toContain(`node=${fake.bin}/node ${version}`);
  });

  it('uses the node an earlier run installed without installing again', async () => {
    const fake = await machine({ version: 'v20.20.2', alreadyInstalled: 'v22.23.3' });

    const result = await fake.run();

    expect(result.code).toBe(0);
    expect(await fake.npmCalls()).toEqual([]);
    expect(result.stdout).toContain(`node=${fake.prefix}/bin/node v22.23.3`);
  });

  it('fails, saying so, when the install gives no node at all', async () => {
    const fake = await machine({ version: 'v20.20.2' });

    const result = await fake.run();

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `ensure-node: node@22 gave no Node.js >= 22.13 (node on PATH: ${fake.bin}/node v20.20.2)`,
    );
  });

  it('fails, saying so, when what it installed is still too old', async () => {
    const fake = await machine({ version: 'v20.20.2', installs: 'v22.1.0' });

    const result = await fake.run();

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `ensure-node: node@22 gave no Node.js >= 22.13 (node on PATH: ${fake.prefix}/bin/node v22.1.0)`,
    );
    expect(result.stdout).not.toContain('node=');
  });
});
