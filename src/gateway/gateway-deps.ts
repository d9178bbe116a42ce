// What the composition root (api-server.ts) builds the gateway's services from: configuration,
// the file stores, the guard on a thread's uploads, the conversion pool and a way to tell every
// process that extensions_config.json changed. No Redis client: the root wires the locks and the
// announcement. The route plugins see only the services (gateway.plugin.ts).
import type { AppConfig } from '../config/app-config.schemas.js';
import type { WriteGuard } from '../config/atomic-file.js';
import type { ExtensionsStore } from '../config/extensions.js';
import type { StdioPolicy } from '../config/mcp-stdio-policy.js';
import type { ConversionPool } from '../convert/pool.js';
import type { SandboxLimits } from '../convert/sandbox.js';
import type { ThreadFiles } from '../workspace/thread-files.js';

export interface UploadLimits {
  /** Files in one request. */
  maxFiles: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of all files of one request. */
  maxRequestBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = Object.freeze({
  maxFiles: 10,
  maxFileBytes: 50 * 1024 * 1024,
  maxRequestBytes: 100 * 1024 * 1024,
});

export interface GatewaySettings {
  uploads: UploadLimits;
  /** Memory, time and LibreOffice settings for document conversion. */
  conversion: SandboxLimits;
  /** Conversions running at once in this process; more wait their turn. */
  maxConcurrentConversions: number;
}

export interface GatewayDeps {
  config: AppConfig;
  files: ThreadFiles;
  /** Serialises changes to one thread's uploads and their index across every API process. */
  uploadsLock: (threadId: string) => WriteGuard;
  extensions: ExtensionsStore;
  /** Folder holding `public/` and `custom/` skills. */
  skillsDir: string;
  /** The conversion sandbox's pool; the composition root sizes it from `settings` and closes it. */
  conversionPool: Pick<ConversionPool, 'convert'>;
  /** Observes each conversion's duration in seconds, by file extension (for /metrics). */
  onConversion?: (format: string, seconds: number) => void;
  /** What a stdio MCP server may start; a PUT that breaks it changes nothing. */
  stdioPolicy: StdioPolicy;
  /** Tells every API and worker process to reload extensions_config.json. */
  announceExtensionsChanged: () => Promise<void>;
  settings: GatewaySettings;
}
