// Throughput against client concurrency, one line per series, as a self-contained SVG.
// Concurrency is on a log scale (1 … 200), runs/s on a linear one from zero.
import type { BenchResults, Series } from '../lib/results.ts';
import type { FloorPoint } from '../workloads/floor.ts';

const WIDTH = 720;
const HEIGHT = 420;
const PAD = { left: 64, right: 200, top: 48, bottom: 56 };
const COLORS = ['#d9480f', '#1c7ed6', '#2b8a3e', '#ae3ec9', '#f59f00'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceMax(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

/** The chart of one results file: every throughput series with more than one point. */
export function resultsChart(results: BenchResults): string {
  const title = `Runs per second, ${results.params.tokens} tokens × ${results.params.delay_ms} ms, ${results.machine.cores} cores`;
  return throughputChart(
    results.series.filter((s) => s.points.length > 1),
    title,
    results.floor ?? [],
  );
}

/** The series as lines; the bare graph (no server, in one process), if measured, dashed. */
export function throughputChart(series: readonly Series[], title: string, floor: readonly FloorPoint[] = []): string {
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.concurrency)))].sort((a, b) => a - b);
  const shownFloor = floor.filter((p) => xs.includes(p.concurrency));
  const yMax = niceMax(Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.runs_per_s)), ...shownFloor.map((p) => p.runs_per_s)) * 1.1);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const lo = Math.log10(xs[0] ?? 1);
  const hi = Math.log10(xs.at(-1) ?? 10);
  const r1 = (v: number) => Math.round(v * 10) / 10;
  const x = (c: number) => r1(PAD.left + (hi === lo ? plotW / 2 : ((Math.log10(c) - lo) / (hi - lo)) * plotW));
  const y = (v: number) => r1(PAD.top + plotH - (v / yMax) * plotH);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${PAD.left}" y="24" font-size="15" font-weight="600">${esc(title)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (yMax / 5) * i;
    parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e9ecef"/>`);
    parts.push(`<text x="${PAD.left - 8}" y="${y(v) + 4}" text-anchor="end" fill="#495057">${Number(v.toFixed(1))}</text>`);
  }
  for (const c of xs) {
    parts.push(`<line x1="${x(c)}" x2="${x(c)}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#f1f3f5"/>`);
    parts.push(`<text x="${x(c)}" y="${PAD.top + plotH + 18}" text-anchor="middle" fill="#495057">${c}</text>`);
  }
  parts.push(`<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">client concurrency (log scale)</text>`);
  parts.push(`<text transform="translate(18 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">completed runs per second</text>`);
  parts.push(`<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#adb5bd"/>`);

  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length] as string;
    const pts = s.points.map((p) => `${x(p.concurrency)},${y(p.runs_per_s)}`);
    parts.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${color}" stroke-width="2.5"/>`);
    for (const p of s.points) {
      parts.push(`<circle cx="${x(p.concurrency)}" cy="${y(p.runs_per_s)}" r="3.5" fill="${color}"><title>${esc(s.label)}: ${p.runs_per_s} runs/s at ${p.concurrency}</title></circle>`);
    }
    const ly = PAD.top + 10 + i * 22;
    parts.push(`<line x1="${PAD.left + plotW + 16}" x2="${PAD.left + plotW + 40}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="3"/>`);
    parts.push(`<text x="${PAD.left + plotW + 46}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  if (shownFloor.length > 1) {
    const color = '#495057';
    parts.push(`<polyline points="${shownFloor.map((p) => `${x(p.concurrency)},${y(p.runs_per_s)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    const ly = PAD.top + 10 + series.length * 22;
    parts.push(`<line x1="${PAD.left + plotW + 16}" x2="${PAD.left + plotW + 40}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${PAD.left + plotW + 46}" y="${ly + 4}">bare graph, no server</text>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}
