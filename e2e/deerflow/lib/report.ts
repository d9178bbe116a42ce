// The result: a table of pages with pass/fail and why, then every failing /api route once (with
// the pages that hit it), which is the list the route work needs.
import { routeOf, type Observed } from './monitor.ts';

export interface StepResult {
  name: string;
  ok: boolean;
  error?: string;
  observed: Observed;
  ms: number;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}

export function printReport(results: StepResult[]): void {
  const out: string[] = ['', '| page | result | why |', '|---|---|---|'];
  for (const r of results) {
    const why = [
      ...(r.error ? [r.error] : []),
      ...[...new Set(r.observed.apiFailures.map((f) => `${f.method} ${routeOf(f.path)} → ${f.status || f.detail}`))],
      ...r.observed.pageErrors.map((e) => `page error: ${e}`),
      ...r.observed.consoleErrors.map((e) => `console: ${e.slice(0, 160)}`),
    ];
    out.push(`| ${cell(r.name)} | ${r.ok ? 'pass' : '**FAIL**'} | ${cell(why.join('; '))} |`);
  }
  const routes = new Map<string, { pages: Set<string>; detail: string }>();
  for (const r of results) {
    for (const f of r.observed.apiFailures) {
      const key = `${f.method} ${routeOf(f.path)} → ${f.status || 'no answer'}`;
      const entry = routes.get(key) ?? { pages: new Set<string>(), detail: f.detail };
      entry.pages.add(r.name);
      routes.set(key, entry);
    }
  }
  if (routes.size > 0) {
    out.push('', 'Failing /api calls:', '');
    for (const [key, { pages, detail }] of [...routes].sort(([a], [b]) => a.localeCompare(b))) {
      out.push(`- \`${key}\` (${[...pages].join(', ')})${detail ? `: ${detail}` : ''}`);
    }
  }
  const elsewhere = new Map<string, number>();
  for (const r of results) {
    for (const key of new Set(r.observed.elsewhere.map((f) => `${f.method} ${routeOf(f.path)} → ${f.status || 'no answer'}`))) elsewhere.set(key, (elsewhere.get(key) ?? 0) + 1);
  }
  if (elsewhere.size > 0) {
    out.push('', "Issue #31's routes, asked for by pages not about them (reported, not failing those pages):", '');
    for (const [key, pages] of elsewhere) out.push(`- \`${key}\` (${pages} pages)`);
  }
  const passed = results.filter((r) => r.ok).length;
  out.push('', `${passed}/${results.length} pages pass.`, '');
  process.stdout.write(out.join('\n'));
}
