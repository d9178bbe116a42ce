// The conversion limiter: in-process only. Changes to a thread's uploads are serialised across
// processes by a Redis lock (store/file-locks.ts), not here.

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
