// Progress lines for whoever runs the bench. stderr, so stdout stays free for a JSON pipe.
const started = performance.now();

export function say(message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}
