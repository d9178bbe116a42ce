import { describe, expect, it } from 'vitest';
import { OutputCapture, shareBudget } from '../../workers/sandbox/output-capture.js';

function capture(keep: number, ...chunks: string[]): OutputCapture {
  const c = new OutputCapture(keep);
  for (const chunk of chunks) c.push(Buffer.from(chunk));
  return c;
}

describe('OutputCapture', () => {
  it('returns everything that fits the budget', () => {
    expect(capture(10, 'abc', 'def').render(10)).toEqual({ text: 'abcdef', truncated: false });
  });

  it('keeps the beginning and the end around a note when output overflows the kept bytes', () => {
    const c = capture(4, 'HEAD', '-middle-', 'TAIL');
    expect(c.totalBytes).toBe(16);
    expect(c.render(8)).toEqual({ text: 'HEAD\n[... 8 bytes of output omitted ...]\nTAIL', truncated: true });
  });

  it('cuts from one contiguous run when nothing was dropped yet', () => {
    expect(capture(100, '0123456789').render(4)).toEqual({ text: '01\n[... 6 bytes of output omitted ...]\n89', truncated: true });
  });
});

describe('shareBudget', () => {
  it('gives each stream what it needs, and lends unused room to the other', () => {
    expect(shareBudget(100, 10, 10)).toEqual({ stdout: 10, stderr: 10 });
    expect(shareBudget(100, 500, 10)).toEqual({ stdout: 90, stderr: 10 });
    expect(shareBudget(100, 10, 500)).toEqual({ stdout: 10, stderr: 90 });
    expect(shareBudget(100, 500, 500)).toEqual({ stdout: 50, stderr: 50 });
    expect(shareBudget(100, 0, 0)).toEqual({ stdout: 0, stderr: 0 });
  });
});
