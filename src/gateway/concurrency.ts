// Two small coordination tools for the gateway's file work, both in-process only.

/**
 * Runs tasks one at a time per key (a thread id), so two requests never interleave their
 * read-modify-write of the same thread's files. The map holds only keys with work pending:
 * an entry is removed as soon as its last task settles.
 */
export function createKeyedLock() {
  const pending = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = pending.get(key) ?? Promise.resolve();
      const current = previous.catch(() => undefined).then(task);
      const settled = current.catch(() => undefined);
      pending.set(key, settled);
      void settled.then(() => {
        if (pending.get(key) === settled) pending.delete(key);
      });
      return current;
    },
    /** Keys with work pending (for tests). */
    size: () => pending.size,
  };
}

/** Runs at most `limit` tasks at once; the others wait in order. */
export function createLimiter(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  // A finishing task hands its slot straight to the next in line, so none can jump the queue.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else active++;
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
