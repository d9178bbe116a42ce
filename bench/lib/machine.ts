// The machine and software the numbers were measured on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MachineInfo {
  cores: number;
  cpu_model: string;
  memory_gib: number;
  os: string;
  node: string;
  redis: string;
}

export function machineInfo(redisVersion: string): MachineInfo {
  return {
    cores: os.availableParallelism(),
    cpu_model: os.cpus()[0]?.model.trim() ?? 'unknown',
    memory_gib: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    redis: redisVersion,
  };
}

/** Installed versions of the packages that matter, read from their package.json. */
export function packageVersions(benchDir: string, warrenRoot: string): Record<string, string> {
  const read = (root: string, name: string) => {
    try {
      const pkg = JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
      return pkg.version ?? 'unknown';
    } catch {
      return 'missing';
    }
  };
  const anchor = ['@langchain/langgraph-api', '@langchain/langgraph-cli', '@langchain/langgraph', '@langchain/core', '@langchain/openai', '@langchain/langgraph-sdk'];
  const warren = ['@langchain/langgraph', '@langchain/core', '@langchain/openai', 'fastify', 'bullmq', 'ioredis'];
  return {
    ...Object.fromEntries(anchor.map((n) => [`bench:${n}`, read(benchDir, n)])),
    ...Object.fromEntries(warren.map((n) => [`warren:${n}`, read(warrenRoot, n)])),
  };
}

/** The commit of the measured checkout, `+changes` when its work tree differs from it. */
export function commitOf(root: string): string {
  try {
    const head = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}
