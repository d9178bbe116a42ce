// Bounded capture of a child's stdout or stderr. A command may print gigabytes; we keep its
// beginning and its end (where errors usually are) and count what was dropped in between, so
// memory stays bounded whatever the command does.

export class OutputCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;

  /** `keep` bytes of the beginning and `keep` bytes of the end are retained. */
  constructor(private readonly keep: number) {}

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.keep - this.headBytes;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
      if (chunk.length === 0) return;
    }
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.subarray(Math.max(0, joined.length - this.keep));
  }

  /**
   * The text within `budget` bytes: all of it when it fits, else its first and last halves
   * around a note saying how much was left out.
   */
  render(budget: number): { text: string; truncated: boolean } {
    const head = Buffer.concat(this.head);
    const contiguous = this.total === head.length + this.tail.length;
    if (contiguous && this.total <= budget) return { text: Buffer.concat([head, this.tail]).toString('utf8'), truncated: false };
    // With nothing dropped yet, head and tail are one run of bytes: cut both ends from it.
    const front = contiguous ? Buffer.concat([head, this.tail]) : head;
    const back = contiguous ? front : this.tail;
    const first = front.subarray(0, Math.ceil(budget / 2));
    const last = back.subarray(back.length - Math.floor(budget / 2));
    const omitted = this.total - first.length - last.length;
    return { text: `${first.toString('utf8')}\n[... ${omitted} bytes of output omitted ...]\n${last.toString('utf8')}`, truncated: true };
  }
}

/**
 * Splits `limit` bytes between stdout and stderr: each gets what it needs up to half, and
 * whatever one leaves unused goes to the other.
 */
export function shareBudget(limit: number, stdoutBytes: number, stderrBytes: number): { stdout: number; stderr: number } {
  const half = Math.floor(limit / 2);
  const stderr = Math.min(stderrBytes, Math.max(half, limit - stdoutBytes));
  return { stdout: Math.min(stdoutBytes, limit - stderr), stderr };
}
