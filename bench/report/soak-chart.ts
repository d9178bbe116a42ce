// The soak's memory over time as a self-contained SVG: one colour per process, heap-used after a
// forced GC solid, RSS dashed; a grey band marks the load, and the text under the title says
// whether every process came back within the tolerance of its start.
import type { FlatnessVerdict, MemorySample } from '../lib/memory-samples.ts';

const WIDTH = 760;
const HEIGHT = 440;
const PAD = { left: 64, right: 190, top: 64, bottom: 56 };
const COLORS = ['#d9480f', '#1c7ed6', '#2b8a3e', '#ae3ec9', '#f59f00', '#495057'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const r1 = (v: number) => Math.round(v * 10) / 10;

function niceMax(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function verdictLine(verdicts: readonly FlatnessVerdict[]): string {
  const failed = verdicts.filter((v) => !v.pass);
  if (failed.length === 0) return 'pass: every process ended within 10 % of its start (heap-used after GC and RSS)';
  return `fail: ${failed.map((v) => v.process).join(', ')} ended more than 10 % above its start (heap-used after GC or RSS)`;
}

export function soakChart(samples: readonly MemorySample[], verdicts: readonly FlatnessVerdict[], title: string, loadEndS: number): string {
  const names = [...new Set(samples.map((s) => s.process))];
  const tMin = Math.min(0, ...samples.map((s) => s.t_s));
  const tMax = Math.max(1, ...samples.map((s) => s.t_s));
  const yMax = niceMax(Math.max(1, ...samples.map((s) => s.rss_mib)) * 1.05);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (t: number) => r1(PAD.left + ((t - tMin) / (tMax - tMin)) * plotW);
  const y = (v: number) => r1(PAD.top + plotH - (v / yMax) * plotH);
  const passed = verdicts.every((v) => v.pass);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${PAD.left}" y="24" font-size="15" font-weight="600">${esc(title)}</text>`,
    `<text x="${PAD.left}" y="44" fill="${passed ? '#2b8a3e' : '#c92a2a'}">${esc(verdictLine(verdicts))}</text>`,
    `<rect x="${x(0)}" y="${PAD.top}" width="${r1(x(loadEndS) - x(0))}" height="${plotH}" fill="#f1f3f5"/>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (yMax / 5) * i;
    parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e9ecef"/>`);
    parts.push(`<text x="${PAD.left - 8}" y="${y(v) + 4}" text-anchor="end" fill="#495057">${Number(v.toFixed(0))}</text>`);
  }
  const minutes = Math.ceil((tMax - tMin) / 60);
  const step = Math.max(1, Math.ceil(minutes / 10));
  for (let m = Math.ceil(tMin / 60); m * 60 <= tMax; m += step) {
    parts.push(`<text x="${x(m * 60)}" y="${PAD.top + plotH + 18}" text-anchor="middle" fill="#495057">${m}</text>`);
  }
  parts.push(`<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">minutes since the load started (grey: under load)</text>`);
  parts.push(`<text transform="translate(18 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">MiB</text>`);
  parts.push(`<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#adb5bd"/>`);
  names.forEach((name, i) => {
    const color = COLORS[i % COLORS.length] as string;
    const own = samples.filter((s) => s.process === name);
    const line = (pick: (s: MemorySample) => number) => own.map((s) => `${x(s.t_s)},${y(pick(s))}`).join(' ');
    parts.push(`<polyline points="${line((s) => s.heap_used_mib)}" fill="none" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<polyline points="${line((s) => s.rss_mib)}" fill="none" stroke="${color}" stroke-width="1.5" stroke-dasharray="5 3"/>`);
    const ly = PAD.top + 14 + i * 36;
    const verdict = verdicts.find((v) => v.process === name);
    parts.push(`<line x1="${WIDTH - PAD.right + 14}" x2="${WIDTH - PAD.right + 34}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${WIDTH - PAD.right + 40}" y="${ly}">${esc(name)}${verdict ? (verdict.pass ? ' ✓' : ' ✗') : ''}</text>`);
    if (verdict) parts.push(`<text x="${WIDTH - PAD.right + 40}" y="${ly + 14}" fill="#495057" font-size="11">heap ×${verdict.heap_ratio}, RSS ×${verdict.rss_ratio}</text>`);
  });
  const ly = PAD.top + 14 + names.length * 36;
  parts.push(`<text x="${WIDTH - PAD.right + 14}" y="${ly}" fill="#495057" font-size="11">solid: heap-used after GC</text>`);
  parts.push(`<text x="${WIDTH - PAD.right + 14}" y="${ly + 14}" fill="#495057" font-size="11">dashed: RSS</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
