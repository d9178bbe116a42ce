// Summaries of the V8 CPU profiles that `--cpu-prof DIR` makes Warren's processes write: where
// the CPU of one throughput level went, by area (Warren's folders, each package, Node's own code,
// the garbage collector) and by function. A profile covers the process's whole life (start-up
// included), so only the samples taken between a level's start and end are counted: V8 stamps
// samples with the monotonic clock that `process.hrtime` reads in every process on the machine.
// Native frames (a string write, a syscall) are charged to the JavaScript function that called
// them, so the table says which of our code made the work, not only that the work was done.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  /** Share of the process's busy time (idle samples left out) in the window. */
  pct: number;
  ms: number;
}

export interface ProfileSummary {
  process: string;
  /** What the window was (e.g. `chat c=50`). */
  window: string;
  /** The window in µs of the monotonic clock, to summarise the profile again at another depth. */
  window_us: [number, number];
  busy_ms: number;
  areas: ProfileRow[];
  functions: ProfileRow[];
}

/** A window in µs of the monotonic clock, as `monotonicMicros()` reads it. */
export interface ProfileWindow {
  label: string;
  startUs: number;
  endUs: number;
}

export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

const IDLE = new Set(['(idle)', '(program)']);
const ROOT = '(root)';

/** The area a frame's code belongs to: a Warren folder, a package, Node, or a V8 pseudo-frame. */
function areaOf(frame: CallFrame): string {
  const url = frame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const own = /\/dist\/((?:src|workers|graphs)(?:\/[^/]+)?)/.exec(url);
  if (own) return `warren ${(own[1] as string).replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return 'node (its own JS)';
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  return path.basename(url);
}

const functionOf = (frame: CallFrame): string =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, '')}:${frame.lineNumber + 1}`;

/** Self time by node, within [startUs, endUs). */
function selfTimes(profile: CpuProfile, startUs: number, endUs: number): Map<number, number> {
  const self = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < startUs || at >= endUs) continue;
    const id = profile.samples[i] as number;
    self.set(id, (self.get(id) ?? 0) + delta);
  }
  return self;
}

function summarise(profile: CpuProfile, processName: string, window: ProfileWindow, top: number): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // A native frame's time goes to its nearest caller with a URL; pseudo-frames keep theirs.
  const chargedTo = (id: number): ProfileNode => {
    let node = byId.get(id) as ProfileNode;
    const own = node;
    while (node.callFrame.url === '' && !node.callFrame.functionName.startsWith('(')) {
      const up = parent.get(node.id);
      if (up === undefined) return own;
      node = byId.get(up) as ProfileNode;
      if (node.callFrame.functionName === ROOT) return own;
    }
    return node;
  };
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfTimes(profile, window.startUs, window.endUs)) {
    const frame = chargedTo(id).callFrame;
    if (IDLE.has(frame.functionName) && frame.url === '') continue;
    busy += us;
    const area = areaOf(frame);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const fn = functionOf(frame);
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const rows = (table: Map<string, number>): ProfileRow[] =>
    [...table]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), pct: Number(((us / Math.max(1, busy)) * 100).toFixed(1)) }));
  return { process: processName, window: window.label, window_us: [window.startUs, window.endUs], busy_ms: Math.round(busy / 1000), areas: rows(areas), functions: rows(functions) };
}

/**
 * Reads every `*.cpuprofile` in `dir` written by one of `pids` (V8 puts the pid in the file name)
 * and summarises each window of each.
 */
export function summariseProfiles(dir: string, pids: Readonly<Record<string, number>>, windows: ProfileWindow[], top = 15): ProfileSummary[] {
  const nameByPid = new Map(Object.entries(pids).map(([name, pid]) => [String(pid), name]));
  const summaries: ProfileSummary[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1];
    const processName = pid === undefined ? undefined : nameByPid.get(pid);
    if (processName === undefined) continue;
    const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    for (const window of windows) summaries.push(summarise(profile, processName, window, top));
  }
  return summaries;
}

/** Markdown: one table of areas per process and window, then its top functions. */
export function profileMarkdown(summaries: ProfileSummary[]): string {
  const out: string[] = [];
  for (const s of summaries) {
    out.push(`**${s.process}, ${s.window}**: ${s.busy_ms} ms busy`, '', '| area | share | ms |', '|---|---|---|');
    for (const row of s.areas) out.push(`| ${row.name} | ${row.pct} % | ${row.ms} |`);
    out.push('', '| function | share | ms |', '|---|---|---|');
    for (const row of s.functions) out.push(`| \`${row.name}\` | ${row.pct} % | ${row.ms} |`);
    out.push('');
  }
  return out.join('\n');
}
