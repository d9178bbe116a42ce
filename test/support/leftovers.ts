// What tests start, written down where the run's global teardown finds it. A test file that
// times out past its hooks, or whose worker dies, never runs its afterAll; the teardown runs in
// vitest's own process after every file and removes what is left: processes (by id, and only if
// the id still names the same command line) and temporary folders.
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    leftoversFile: string;
  }
}

interface Note {
  pid?: number;
  cmdline?: string;
  dir?: string;
}

const cmdlineOf = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
};

function note(entry: Note): void {
  let file: string | undefined;
  try {
    file = inject('leftoversFile');
  } catch {
    // Outside a vitest worker (the global setup itself): its own teardown cleans up.
  }
  if (file) appendFileSync(file, `${JSON.stringify(entry)}\n`);
}

/** Notes a process a test started; returns it. */
export function tracked<T extends ChildProcess>(child: T): T {
  if (child.pid) note({ pid: child.pid, cmdline: cmdlineOf(child.pid) });
  return child;
}

/** Notes a temporary folder a test made; returns its path. */
export function trackedDir(dir: string): string {
  note({ dir });
  return dir;
}

/** Ends every noted process still running and removes every noted folder still there; says how many. */
export function sweepLeftovers(file: string): { processes: number; dirs: number } {
  if (!existsSync(file)) return { processes: 0, dirs: 0 };
  let processes = 0;
  let dirs = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const entry = JSON.parse(line) as Note;
    // A reused id names another command line: not ours to end.
    if (entry.pid && entry.cmdline && cmdlineOf(entry.pid) === entry.cmdline) {
      try {
        process.kill(entry.pid, 'SIGKILL');
        processes += 1;
      } catch {
        // gone meanwhile
      }
    }
    if (entry.dir && existsSync(entry.dir)) {
      rmSync(entry.dir, { recursive: true, force: true });
      dirs += 1;
    }
  }
  return { processes, dirs };
}
