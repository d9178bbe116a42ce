// Progress lines on stderr, so the result table on stdout stays clean.
export function say(line: string): void {
  process.stderr.write(`[e2e:deerflow] ${line}\n`);
}
