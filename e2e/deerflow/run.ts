// `npm run e2e:deerflow [-- --deerflow-dir DIR] [--deerflow-git DIR] [--rebuild] [--only a,b] [--screenshots DIR] [--verbose] [--accounts] [--deerflow-nginx]`
// `--accounts`: Warren's accounts on and DeerFlow's sign-in with them: set-up, sign out, sign in, chat, Settings › Channels, sign out (issue #31).
// `--deerflow-nginx`: the proxy rewrites /api/langgraph/* to /api/* as DeerFlow's own nginx does, so
// the UI's LangGraph calls go to Warren's DeerFlow twins.
// DeerFlow's own web UI, built from bytedance/deer-flow at f1f4af99b, in front of Warren (a real
// API and worker on a private Redis, a scripted model), behind a proxy that sends /api/* to
// Warren and the rest to Next.js; headless Chromium walks every page issue #30 lists. A step
// fails on an uncaught page error, a console error of the app, an /api answer >= 400 the flow
// did not ask for, or a thing the user should see that never shows. Prints page → pass/fail and
// exits 1 when any page failed. Everything started is stopped, and temp folders removed, on exit.
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { cleanup, installSignalHandlers, onCleanup, tempDir } from './lib/cleanup.ts';
import { DEERFLOW_COMMIT, ensureBuild, ensureSource } from './lib/frontend.ts';
import { Monitor, routeOf, type Observed } from './lib/monitor.ts';
import { printReport, type StepResult } from './lib/report.ts';
import { say } from './lib/say.ts';
import { startStack } from './lib/stack.ts';
import { ISSUE31_ROUTES, SIGN_IN_STEPS, STEPS, type WalkState } from './lib/steps.ts';

/** A git directory on this machine known to hold DeerFlow's history (used when it has the commit). */
const KNOWN_LOCAL_GIT = ['/work/.mirror/bytedance+deer-flow/repo'];
const STEP_DEADLINE_MS = 120_000;
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function options() {
  const { values } = parseArgs({
    options: {
      'deerflow-dir': { type: 'string' },
      'deerflow-git': { type: 'string' },
      chromium: { type: 'string' },
      rebuild: { type: 'boolean', default: false },
      only: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      screenshots: { type: 'string' },
      accounts: { type: 'boolean', default: false },
      'deerflow-nginx': { type: 'boolean', default: false },
    },
  });
  const env = process.env;
  return {
    dir: path.resolve(values['deerflow-dir'] ?? env.WARREN_E2E_DEERFLOW_DIR ?? path.join(os.homedir(), '.cache', 'warren-e2e', `deer-flow-${DEERFLOW_COMMIT.slice(0, 9)}`)),
    git: values['deerflow-git'] ?? env.WARREN_E2E_DEERFLOW_GIT ?? KNOWN_LOCAL_GIT.find((dir) => existsSync(dir)),
    chromium: values.chromium ?? env.CHROMIUM ?? '/usr/bin/chromium',
    rebuild: values.rebuild,
    only: values.only?.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean),
    verbose: values.verbose,
    /** A folder (kept) for a screenshot of each failed page. */
    screenshots: values.screenshots ? path.resolve(values.screenshots) : undefined,
    accounts: values.accounts,
    deerflowNginx: values['deerflow-nginx'],
  };
}

async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<number> {
  installSignalHandlers();
  const opts = options();
  const frontend = ensureSource(opts.dir, opts.git);
  ensureBuild(frontend, opts.rebuild);
  if (!existsSync(opts.chromium)) throw new Error(`no Chromium at ${opts.chromium} (--chromium PATH or CHROMIUM=...; Debian: apt-get install chromium)`);

  const stack = await startStack(frontend, { verbose: opts.verbose, accounts: opts.accounts, deerflowNginx: opts.deerflowNginx });
  const profile = tempDir('warren-e2e-chromium-');
  // A fresh profile each run; Playwright passes it as --user-data-dir and adds --headless itself.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: opts.chromium,
    headless: true,
    args: CHROMIUM_FLAGS.filter((flag) => flag !== '--headless'),
    baseURL: stack.url,
    viewport: { width: 1440, height: 900 },
    locale: 'en-US',
  });
  onCleanup('close Chromium', () => context.close());
  const monitor = new Monitor(context, stack.url);
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('dialog', (dialog) => void dialog.accept()); // confirm() before deletes: the user says yes
  const state: WalkState = { scratch: tempDir('warren-e2e-files-'), expectedNow: [] };

  const walk = opts.accounts ? SIGN_IN_STEPS : STEPS;
  const steps = opts.only ? walk.filter((s) => opts.only?.some((o) => s.name.toLowerCase().includes(o))) : walk;
  const results: StepResult[] = [];
  for (const step of steps) {
    say(`step: ${step.name}`);
    // Steps stand alone: the sidebar (which the artifact panel folds away, in a cookie) starts open.
    await context.addCookies([{ name: 'sidebar_state', value: 'true', url: stack.url }]);
    monitor.begin();
    state.expectedNow = [];
    const started = Date.now();
    let error: string | undefined;
    try {
      await withDeadline(step.run(page, state), STEP_DEADLINE_MS, step.name);
    } catch (err) {
      error = err instanceof Error ? err.message.split('\n')[0] : String(err);
    }
    await monitor.settle();
    const observed: Observed = monitor.end([...(step.expected ?? []), ...state.expectedNow], step.ownsIssue31 ? [] : ISSUE31_ROUTES);
    const ok = !error && observed.apiFailures.length === 0 && observed.pageErrors.length === 0 && observed.consoleErrors.length === 0;
    results.push({ name: step.name, ok, error, observed, ms: Date.now() - started });
    if (!ok && opts.screenshots) {
      mkdirSync(opts.screenshots, { recursive: true });
      const file = path.join(opts.screenshots, `${String(results.length).padStart(2, '0')}-${step.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.png`);
      await page.screenshot({ path: file, fullPage: true }).catch(() => undefined); // a closed page has nothing to show
    }
    say(`  ${ok ? 'pass' : 'FAIL'}${error ? `: ${error}` : ''}${observed.apiFailures.map((f) => `\n    ${f.method} ${routeOf(f.path)} → ${f.status}`).join('')}`);
  }
  printReport(results);
  return results.every((r) => r.ok) ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  process.stderr.write(`[e2e:deerflow] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
} finally {
  await cleanup();
}
process.exit(code);
