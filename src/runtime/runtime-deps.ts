// What the runtime route group is handed by the composition root: services built once, never
// the stores or a Redis client. runtime.plugin.ts gives each route plugin only its part.
import type { GraphRegistry } from '../../graphs/registry.js';
import type { AssistantsService } from './assistants.service.js';
import type { CronsService } from '../crons/crons.service.js';
import type { RunFollow } from '../streams/run-follow.js';
import type { RunsService } from './runs.service.js';
import type { StateService } from './state.service.js';
import type { StoreService } from './store.service.js';
import type { ThreadsService } from './threads.service.js';
import type { TruncateService } from './truncate.service.js';

export interface RuntimeSettings {
  heartbeatMs: number;
  /** Interval of the whitespace keep-alive on `/wait` and `/join`. */
  keepAliveMs: number;
}

export interface RuntimeDeps {
  assistants: AssistantsService;
  threads: ThreadsService;
  state: StateService;
  runs: RunsService;
  crons: CronsService;
  follow: RunFollow;
  store: StoreService;
  graphs: GraphRegistry;
  settings: RuntimeSettings;
  /** Dev mode only (config.yaml `dev: true`): `POST /internal/truncate`. */
  truncate?: TruncateService;
}
