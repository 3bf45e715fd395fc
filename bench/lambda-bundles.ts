import { execFile } from 'node:child_process';
import { updatePerformanceSection } from './performance-doc.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';

// The Lambda bundles as `npm run package` builds them: their sizes, and how long each takes to
// initialise (import) in a fresh Node.js process — the very Node.js running the bench
// (`process.execPath`, 22 like Lambda's `nodejs22.x`), never a `node` found on PATH, where npm
// puts node_modules/.bin first. `@aws-sdk/*` is not in the bundles (the Lambda runtime ships
// SDK v3): it is loaded from node_modules here, so the init times include loading it.

export const ROOT = path.join(import.meta.dirname, '..');
export const LAMBDA_FUNCTIONS = ['webhook', 'worker', 'reminder'] as const;
export type LambdaFunction = (typeof LAMBDA_FUNCTIONS)[number];
export const TARGETS: Record<LambdaFunction, { bytes: number; initMs: number } | undefined> = {
  webhook: { bytes: 300 * 1024, initMs: 150 },
  worker: { bytes: 1200 * 1024, initMs: 300 },
  reminder: undefined,
};

const run = promisify(execFile);

/** `npm run package`: `osls package`, offline. */
export async function packageLambdas(): Promise<void> {
  await run('npm', ['run', 'package'], { cwd: ROOT, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
}

export interface ZipEntry {
  readonly name: string;
  readonly compressedSize: number;
  readonly data: Buffer;
}

/** The entries of a zip archive (stored or deflated), read from its central directory. */
export function readZip(archive: Buffer): ZipEntry[] {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive');
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localHeader = archive.readUInt32LE(offset + 42);
    const name = archive.toString('utf8', offset + 46, offset + 46 + nameLength);
    const dataStart =
      localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
    const raw = archive.subarray(dataStart, dataStart + compressedSize);
    entries.push({ name, compressedSize, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

export interface PackagedFunction {
  readonly name: LambdaFunction;
  readonly zipBytes: number;
  readonly entries: readonly ZipEntry[];
  /** The bundle (`.mjs`) as deployed, extracted next to node_modules so `@aws-sdk/*` resolves. */
  readonly bundlePath: string;
  readonly bundleBytes: number;
}

/** Reads `.serverless/<function>.zip` and extracts its bundle under `.esbuild/deployed/`. */
export async function packagedFunction(name: LambdaFunction): Promise<PackagedFunction> {
  const archive = await readFile(path.join(ROOT, '.serverless', `${name}.zip`));
  const entries = readZip(archive);
  const bundle = entries.find((entry) => entry.name.endsWith('.mjs'));
  if (!bundle) throw new Error(`${name}.zip holds no .mjs bundle`);
  const bundlePath = path.join(ROOT, '.esbuild', 'deployed', name, bundle.name);
  await mkdir(path.dirname(bundlePath), { recursive: true });
  await writeFile(bundlePath, bundle.data);
  return { name, zipBytes: archive.length, entries, bundlePath, bundleBytes: bundle.data.length };
}

export interface BundleInvocation {
  readonly result?: unknown;
  readonly error?: string;
  /** CPU (user + system) the process spent in this invocation, ms. */
  readonly cpuMs: number;
  readonly wallMs: number;
}

export interface BundleRun {
  /** `import()` of the bundle: module loading and evaluation, what Lambda's init phase does. */
  readonly initMs: number;
  /** The CPU (user + system) that import took, ms: what scales with a Lambda's memory size. */
  readonly initCpuMs: number;
  readonly node: string;
  readonly handler: string;
  /** The first invocation's outcome, when an event was given. */
  readonly result?: unknown;
  readonly error?: string;
  /** Every invocation, in the order of the events given. */
  readonly invocations: readonly BundleInvocation[];
  /** The process's peak resident memory (MiB): what the function's memory size must hold. */
  readonly maxRssMb: number;
}

// Runs in the fresh Node.js process: import the bundle, time it (wall and CPU), and invoke the
// handler once per event given, in order, timing each invocation's CPU.
const RUNNER = `
const cpuMs = (since) => { const { user, system } = process.cpuUsage(since); return (user + system) / 1000; };
const cpuAtStart = process.cpuUsage();
const started = performance.now();
const module = await import(process.env.KAIWA_BUNDLE_URL);
const outcome = { initMs: performance.now() - started, initCpuMs: cpuMs(cpuAtStart), node: process.version, handler: typeof module.handler };
const events = process.env.KAIWA_EVENTS ? JSON.parse(process.env.KAIWA_EVENTS) : [];
outcome.invocations = [];
for (const event of events) {
  const deadline = Date.now() + Number(process.env.KAIWA_REMAINING_MS ?? 60000);
  const context = {
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    functionName: 'kaiwa-bench',
    invokedFunctionArn: process.env.KAIWA_FUNCTION_ARN ?? 'arn:aws:lambda:us-east-1:123456789012:function:kaiwa-bench',
    awsRequestId: crypto.randomUUID(),
  };
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const invocation = {};
  try {
    invocation.result = await module.handler(event, context);
  } catch (error) {
    invocation.error = String(error && error.stack ? error.stack : error);
  }
  invocation.cpuMs = cpuMs(cpuBefore);
  invocation.wallMs = performance.now() - wallBefore;
  outcome.invocations.push(invocation);
}
if (outcome.invocations.length > 0) Object.assign(outcome, outcome.invocations[0]);
outcome.maxRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write('\\nKAIWA_OUTCOME ' + JSON.stringify(outcome) + '\\n');
process.exit(0);
`;

/**
 * Loads a bundle in a fresh process of the Node.js running this code and invokes its handler
 * once with `event`, or once per entry of `events`, one after the other.
 */
export async function runBundle(
  bundlePath: string,
  options: {
    env?: Record<string, string>;
    event?: unknown;
    events?: unknown[];
    remainingMs?: number;
    /** Control groups (v1, `cpu` and `memory`) to run the process in: a Lambda-sized envelope. */
    cgroup?: string;
  } = {},
): Promise<BundleRun> {
  const events = options.events ?? (options.event !== undefined ? [options.event] : []);
  const nodeArgs = ['--input-type=module', '-e', RUNNER];
  // The shell joins the groups before it becomes Node.js: the import is measured inside them too.
  const [command, args] = options.cgroup
    ? [
        'sh',
        [
          '-c',
          `echo $$ > /sys/fs/cgroup/cpu/${options.cgroup}/cgroup.procs && echo $$ > /sys/fs/cgroup/memory/${options.cgroup}/cgroup.procs && exec "$0" "$@"`,
          process.execPath,
          ...nodeArgs,
        ],
      ]
    : [process.execPath, nodeArgs];
  const { stdout } = await run(command, args, {
    cwd: ROOT,
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '',
      ...options.env,
      KAIWA_BUNDLE_URL: pathToFileURL(bundlePath).href,
      ...(events.length > 0 && { KAIWA_EVENTS: JSON.stringify(events) }),
      ...(options.remainingMs !== undefined && { KAIWA_REMAINING_MS: String(options.remainingMs) }),
    },
  });
  const line = stdout.split('\n').find((candidate) => candidate.startsWith('KAIWA_OUTCOME '));
  if (!line) throw new Error(`no outcome from the bundle run:\n${stdout}`);
  return JSON.parse(line.slice('KAIWA_OUTCOME '.length)) as BundleRun;
}

export interface BundleFigures {
  readonly name: LambdaFunction;
  readonly bundleBytes: number;
  readonly zipBytes: number;
  readonly initMedianMs: number;
  readonly initP90Ms: number;
  /** The import's CPU time, median: the part of init that a smaller Lambda slows down. */
  readonly initCpuMedianMs: number;
  readonly node: string;
}

/** Lambda gives a function one full vCPU at 1,769 MB and a proportional share below it. */
export const FULL_VCPU_MB = 1769;
/** The memory sizes the sizing figures are given for. */
export const SIZING_MB = [256, 512, 1024] as const;

/**
 * What `cpuMs` of single-threaded CPU work takes on a Lambda of `memoryMb`: the CPU share is
 * `memoryMb / 1769` of a vCPU, so the work is stretched by its inverse (never below the CPU time).
 * This assumes the measuring core is as fast as a Lambda vCPU (Graviton on arm64): a model, not a
 * measurement on Lambda.
 */
export function cpuBoundMsAt(cpuMs: number, memoryMb: number): number {
  return cpuMs / Math.min(1, memoryMb / FULL_VCPU_MB);
}

/** Packages, then measures each function's bundle and its cold init over `runs` fresh processes. */
export async function measureLambdaBundles(runs = 15): Promise<BundleFigures[]> {
  if (Number(process.versions.node.split('.')[0]) < 22) {
    throw new Error(`the Lambda figures need Node.js 22, as Lambda's nodejs22.x; this is ${process.version}`);
  }
  await packageLambdas();
  const figures: BundleFigures[] = [];
  for (const name of LAMBDA_FUNCTIONS) {
    const packaged = await packagedFunction(name);
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let node = '';
    for (let index = 0; index < runs; index++) {
      const outcome = await runBundle(packaged.bundlePath, { env: { AWS_REGION: 'ap-northeast-1' } });
      if (outcome.handler !== 'function') throw new Error(`${name}: the bundle exports no handler`);
      times.push(outcome.initMs);
      cpuTimes.push(outcome.initCpuMs);
      node = outcome.node;
    }
    times.sort((a, b) => a - b);
    cpuTimes.sort((a, b) => a - b);
    figures.push({
      name,
      bundleBytes: packaged.bundleBytes,
      zipBytes: packaged.zipBytes,
      initMedianMs: times[Math.floor(times.length / 2)]!,
      initP90Ms: times[Math.min(times.length - 1, Math.floor(times.length * 0.9))]!,
      initCpuMedianMs: cpuTimes[Math.floor(cpuTimes.length / 2)]!,
      node,
    });
  }
  return figures;
}

const START = '<!-- lambda-bundles -->';
const END = '<!-- /lambda-bundles -->';

/** The figures as a section of docs/PERFORMANCE.md, between markers so it can be replaced alone. */
export function lambdaBundlesSection(figures: readonly BundleFigures[]): string {
  return `${START}
## Lambda bundles: size and cold initialisation

\`npm run package\` (osls + serverless-esbuild: minified ESM, \`node22\` target) builds one bundle
per function. **\`@aws-sdk/*\` is left out of every bundle** (external): the Lambda Node.js
runtime ships SDK v3, and the bundles load it and Node.js's modules with \`require()\`, not \`import\`
(\`scripts/lambda-esbuild-plugins.mjs\`). Cold init is the \`import()\` of the deployed bundle (extracted from its
zip) in a fresh process of Node.js ${figures[0]?.node ?? process.version} — the Node.js that ran the bench
(Lambda runs \`nodejs22.x\`) — SDK modules loaded from \`node_modules\`; median and p90 of fresh processes, measured
${new Date().toISOString().slice(0, 10)} on this machine (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}).
Lambda's own bootstrap and the first invocation's composition (SSM read, clients) are not included.
Wall time moves with the machine's load (other processes share its cores); the import's **CPU
time** does much less, and it is what a smaller Lambda stretches: below 1,769 MB a function gets
that fraction of a vCPU, so the last columns are the CPU time ÷ (memory / 1,769 MB) — a model
that takes this machine's core as fast as a Lambda vCPU, not a measurement on Lambda.

${formatBundleFigures(figures)}
${END}`;
}

export function formatBundleFigures(figures: readonly BundleFigures[]): string {
  const rows = figures.map((figure) => {
    const target = TARGETS[figure.name];
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    const goal = target ? `≤ ${kb(target.bytes)}, ≤ ${target.initMs} ms` : '—';
    const atSizes = SIZING_MB.map(
      (memoryMb) => `${cpuBoundMsAt(figure.initCpuMedianMs, memoryMb).toFixed(0)} ms`,
    );
    return `| ${figure.name} | ${kb(figure.bundleBytes)} | ${kb(figure.zipBytes)} | ${figure.initMedianMs.toFixed(0)} ms | ${figure.initP90Ms.toFixed(0)} ms | ${figure.initCpuMedianMs.toFixed(0)} ms | ${atSizes.join(' | ')} | ${goal} |`;
  });
  return [
    `| function | bundle (minified ESM) | zip | cold init, median | p90 | init CPU, median | ${SIZING_MB.map((memoryMb) => `init at ${memoryMb} MB`).join(' | ')} | target |`,
    `|---|---|---|---|---|---|${SIZING_MB.map(() => '---|').join('')}---|`,
    ...rows,
  ].join('\n');
}

// `npx tsx bench/lambda-bundles.ts`: just these figures, also written to their section of docs/PERFORMANCE.md.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`Lambda bundles, cold init on Node.js ${process.version} (${process.execPath})`);
  measureLambdaBundles().then(
    async (figures) => {
      console.log(`${formatBundleFigures(figures)}\n\nNode.js ${figures[0]?.node}; @aws-sdk/* external.`);
      await updatePerformanceSection('lambda-bundles', lambdaBundlesSection(figures));
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
