import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { DEFAULT_PERSONA, loadPersona } from '../../src/prompt/persona.js';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'kaiwa-persona-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('the persona', () => {
  it('is the built-in one when no file is configured', async () => {
    expect(await loadPersona(undefined)).toBe(DEFAULT_PERSONA);
  });

  it("is the bot's own when no file is configured, and an empty one stops the start", async () => {
    expect(await loadPersona(undefined, '  You are Dicey.\n')).toBe('You are Dicey.');
    await expect(loadPersona(undefined, ' \n ')).rejects.toThrow(/persona is empty/);
  });

  it("is the file's text, trimmed, without a byte-order mark", async () => {
    const path = join(directory, 'momo.txt');
    await writeFile(path, '\uFEFF\nあなたは「もも」、明るい猫です。\n短く答えてください。\n\n');

    expect(await loadPersona(path)).toBe('あなたは「もも」、明るい猫です。\n短く答えてください。');
  });

  it.each([
    ['a missing file', () => Promise.resolve(join(directory, 'missing.txt')), 'does not exist'],
    [
      'a directory',
      async () => {
        const path = join(directory, 'a-directory');
        await mkdir(path);
        return path;
      },
      'is a directory',
    ],
    [
      'an empty file',
      async () => {
        const path = join(directory, 'empty.txt');
        await writeFile(path, ' \n\t\n');
        return path;
      },
      'names an empty file',
    ],
  ])('fails start-up for %s with an error naming KAIWA_PERSONA_FILE', async (_case, makePath, reason) => {
    const path = await makePath();

    const error = await loadPersona(path).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ variable: 'KAIWA_PERSONA_FILE' });
    expect((error as ConfigError).message).toMatch(/^invalid configuration: KAIWA_PERSONA_FILE /);
    expect((error as ConfigError).message).toContain(reason);
    expect((error as ConfigError).message).toContain(path);
  });
});
