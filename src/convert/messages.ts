// Helpers for the user-facing text of ConversionError messages.

/** A file name safe to quote in a message: no directories, no control characters, bounded. */
export function displayName(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/\p{Cc}/gu, '').trim();
  if (clean.length === 0) return 'the document';
  return clean.length > 120 ? `${clean.slice(0, 117)}...` : clean;
}

/** A duration for a message: milliseconds below one second, else seconds to one decimal. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
