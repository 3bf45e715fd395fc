import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/server/node-version.js';

describe('the Node.js version check', () => {
  it.each([
    ['>=22.13', 'v20.20.2', 'kaiwa needs Node.js >= 22.13 (this is v20.20.2)'],
    ['>=22.13', 'v22.12.0', 'kaiwa needs Node.js >= 22.13 (this is v22.12.0)'],
    ['>=22.13', 'v22.9.0', 'kaiwa needs Node.js >= 22.13 (this is v22.9.0)'],
    ['>=22', 'v21.7.3', 'kaiwa needs Node.js >= 22 (this is v21.7.3)'],
  ])('%s refuses %s', (range, version, message) => {
    expect(nodeVersionProblem(range, version)).toBe(message);
  });

  it.each([
    ['>=22.13', 'v22.13.0'],
    ['>=22.13', 'v22.23.3'],
    ['>=22.13', 'v24.1.0'],
    ['>= 22', 'v22.0.0'],
  ])('%s accepts %s', (range, version) => {
    expect(nodeVersionProblem(range, version)).toBeUndefined();
  });

  it('understands the range package.json declares, and this Node.js satisfies it', () => {
    const { engines } = JSON.parse(
      readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8'),
    ) as { engines: { node: string } };

    expect(nodeVersionProblem(engines.node, process.version)).toBeUndefined();
    expect(nodeVersionProblem(engines.node, 'v20.20.2')).toMatch(/^kaiwa needs Node\.js >= 22/);
  });

  it('rejects a range it cannot read instead of letting every version through', () => {
    expect(() => nodeVersionProblem('^22.13.0', 'v22.13.0')).toThrow(/engines\.node/);
  });
});
