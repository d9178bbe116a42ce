// The first conversions of a fresh conversion thread (#36): a new pool converts the generated
// 50-page report three times, with a cold thread or with a thread kept warm (`warm`), and prints
// wall and process CPU per conversion. Profile the thread with `--cpu-prof`:
//   node bench/cold-thread.ts [warren root] [cold|warm]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { reportPdf } from '../test/fixtures/documents/src/pdf-builder.ts';
import type { Sandbox } from './workloads/conversion.ts';

const root = process.argv[2] ?? process.cwd();
const url = pathToFileURL(path.join(root, 'dist', 'src', 'convert', 'sandbox.js')).href;
const mod = (await import(url)) as { createSandbox: (limits: { warmThreads?: number }) => Sandbox };
const warm = process.argv[3] === 'warm';
const sb = mod.createSandbox(warm ? { warmThreads: 1 } : {});
// The warm thread gets time to warm up, as it has between a server's boot and its first upload.
if (warm) await new Promise((resolve) => setTimeout(resolve, 15000));
const bytes = reportPdf(50);
const out: string[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await sb.convert(bytes, 'report.pdf', { timeoutMs: 120000 });
  const d = process.cpuUsage(c0);
  out.push(`${Math.round(performance.now() - t0)}/${Math.round((d.user + d.system) / 1000)}`);
}
console.log(`${root} ${warm ? 'warm' : 'cold'} thread, wall/CPU ms per conversion: ${out.join(' ')}`);
await sb.close();
