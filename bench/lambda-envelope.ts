import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { FULL_VCPU_MB } from './lambda-bundles.js';

const CPU = '/sys/fs/cgroup/cpu';
const MEMORY = '/sys/fs/cgroup/memory';
const PERIOD_US = 100_000;

/**
 * A Lambda-sized envelope on this machine: control groups (v1) that give a process the vCPU
 * share Lambda gives `memoryMb` (memory / 1,769 MB of one core, as a CFS quota) and that much
 * memory. Undefined where the groups cannot be made (no root, cgroup v2 only): the sizing bench
 * then reports CPU times alone.
 */
export async function lambdaEnvelope(memoryMb: number): Promise<string | undefined> {
  const name = `kaiwa-lambda-${memoryMb}`;
  try {
    await mkdir(`${CPU}/${name}`, { recursive: true });
    await mkdir(`${MEMORY}/${name}`, { recursive: true });
    await writeFile(`${CPU}/${name}/cpu.cfs_period_us`, String(PERIOD_US));
    const share = Math.min(1, memoryMb / FULL_VCPU_MB);
    await writeFile(`${CPU}/${name}/cpu.cfs_quota_us`, String(Math.round(PERIOD_US * share)));
    await writeFile(`${MEMORY}/${name}/memory.limit_in_bytes`, String(memoryMb * 1024 * 1024));
    await writeFile(`${MEMORY}/${name}/memory.max_usage_in_bytes`, '0');
    return name;
  } catch {
    return undefined;
  }
}

/** The envelope's peak memory use since it was made (MiB), page cache included. */
export async function envelopePeakMb(name: string): Promise<number> {
  return Number(await readFile(`${MEMORY}/${name}/memory.max_usage_in_bytes`, 'utf8')) / 1024 / 1024;
}
