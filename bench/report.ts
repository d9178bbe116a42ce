// `node bench/report.ts results/<date>.json`: redraws that run's chart and rewrites the results
// block of README.md from it, without measuring anything (for when the tables change).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchResults } from './lib/results.ts';
import { resultsChart } from './report/chart.ts';
import { resultsBlock, updateReadme } from './report/readme.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: node bench/report.ts bench/results/<date>.json');
const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
const name = path.basename(file, '.json');
const dir = path.dirname(path.resolve(file));
writeFileSync(path.join(dir, `${name}.svg`), resultsChart(results));
updateReadme(path.join(import.meta.dirname, 'README.md'), resultsBlock(results, `${name}.json`, `${name}.svg`));
process.stderr.write(`README.md and ${name}.svg rewritten from ${file}\n`);
