// What the browser reports while a step runs: uncaught page errors, the app's console errors,
// and every /api answer of 400 or more. A step names the answers its flow expects (a 404 that
// means "not created yet"); anything else fails it.
import type { BrowserContext, Page, Request } from 'playwright-core';

export interface ExpectedAnswer {
  method?: string;
  path: RegExp;
  status?: number;
}

export interface ApiFailure {
  method: string;
  path: string;
  status: number;
  detail: string;
}

export interface Observed {
  apiFailures: ApiFailure[];
  /** Failures of routes another issue owns, seen on a page that is not about them. */
  elsewhere: ApiFailure[];
  pageErrors: string[];
  consoleErrors: string[];
}

/** Ids in paths become {id}, so one route's failures read as one line. */
export function routeOf(pathname: string): string {
  return pathname
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{id}')
    .replace(/\/(e2e-agent-[a-z0-9-]+|e2e-[a-z0-9-]+\.(txt|md))(?=\/|$)/g, '/{name}');
}

export class Monitor {
  private current: Observed = { apiFailures: [], elsewhere: [], pageErrors: [], consoleErrors: [] };
  /** Requests still waiting for an answer, streams left out. */
  private readonly inFlight = new Set<Request>();
  private lastActivity = Date.now();

  private readonly origin: string;

  constructor(context: BrowserContext, origin: string) {
    this.origin = origin;
    context.on('page', (page) => this.watch(page));
    for (const page of context.pages()) this.watch(page);
  }

  private watch(page: Page): void {
    page.on('pageerror', (err) => this.current.pageErrors.push(err.message.split('\n')[0] ?? err.message));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      // The browser's own line for a failed fetch repeats what the response listener records.
      if (text.startsWith('Failed to load resource')) return;
      this.current.consoleErrors.push(text.slice(0, 300));
    });
    page.on('request', (request) => {
      if (!this.isStream(request)) this.inFlight.add(request);
      this.lastActivity = Date.now();
    });
    const done = (request: Request) => {
      this.inFlight.delete(request);
      this.lastActivity = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', (request) => {
      done(request);
      const url = new URL(request.url());
      const reason = request.failure()?.errorText ?? 'failed';
      // A stream or fetch the app aborts on navigation is not a failure of the server.
      if (url.origin === this.origin && url.pathname.startsWith('/api/') && reason !== 'net::ERR_ABORTED') {
        this.current.apiFailures.push({ method: request.method(), path: url.pathname, status: 0, detail: reason });
      }
    });
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (url.origin !== this.origin || !url.pathname.startsWith('/api/') || response.status() < 400) return;
      const failure: ApiFailure = { method: response.request().method(), path: url.pathname, status: response.status(), detail: '' };
      this.current.apiFailures.push(failure);
      const body = await response.text().catch(() => ''); // the page may be gone; the status is what counts
      failure.detail = body.replace(/\s+/g, ' ').slice(0, 160);
    });
  }

  private isStream(request: Request): boolean {
    const accept = request.headers()['accept'] ?? '';
    return accept.includes('text/event-stream') || /\/(stream|join)(\?|$)/.test(request.url());
  }

  /** Starts a new step's record. */
  begin(): void {
    this.current = { apiFailures: [], elsewhere: [], pageErrors: [], consoleErrors: [] };
  }

  /**
   * Waits until no request has been in flight for `quietMs` (or `maxMs` passed), so what a page
   * asks for after its last visible change still counts towards its step.
   */
  async settle(quietMs = 1000, maxMs = 10_000): Promise<void> {
    const until = Date.now() + maxMs;
    while (Date.now() < until) {
      if (this.inFlight.size === 0 && Date.now() - this.lastActivity >= quietMs) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The step's record, with the answers it expected taken out and `apart` ones set aside. */
  end(expected: readonly ExpectedAnswer[], apart: readonly ExpectedAnswer[] = []): Observed {
    const matches = (f: ApiFailure, list: readonly ExpectedAnswer[]) =>
      list.some((e) => (e.method === undefined || e.method === f.method) && e.path.test(f.path) && (e.status === undefined || e.status === f.status));
    const unexpected = this.current.apiFailures.filter((f) => !matches(f, expected));
    return { ...this.current, apiFailures: unexpected.filter((f) => !matches(f, apart)), elsewhere: unexpected.filter((f) => matches(f, apart)) };
  }
}
