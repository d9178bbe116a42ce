// The shape of config.yaml. The TypeBox schema is the single source of validation and types.
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { DEFAULT_STDIO_ALLOWED_COMMANDS } from './mcp-stdio-policy.js';

const NonEmpty = Type.String({ minLength: 1 });

/** A section that may be left out of the file: it is filled with its own defaults. */
const withDefault = <T extends TProperties>(schema: TObject<T>) =>
  Type.Object(schema.properties, { default: Value.Create(schema) });

export const ModelConfigSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:/-]+$' }),
    display_name: Type.Optional(Type.String()),
    /** `openai`, `anthropic`, `deepseek`, `ollama`, or a LangChain class path such as `langchain_openai:ChatOpenAI`. */
    use: NonEmpty,
    model: NonEmpty,
    /** Kept as written (`$NAME` stays a reference) and resolved when a run builds the model. */
    api_key: Type.Optional(Type.String()),
    base_url: Type.Optional(Type.String()),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    temperature: Type.Optional(Type.Number()),
    supports_thinking: Type.Boolean({ default: false }),
    supports_vision: Type.Boolean({ default: false }),
    /** DeerFlow's prices per million tokens, for the console's spend estimates (`/api/console/*`). */
    pricing: Type.Optional(
      Type.Object(
        {
          currency: Type.String({ minLength: 1, maxLength: 8, default: 'USD' }),
          input_per_million: Type.Number({ minimum: 0, default: 0 }),
          output_per_million: Type.Number({ minimum: 0, default: 0 }),
          input_cache_hit_per_million: Type.Optional(Type.Number({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  // Closed like every section: a misspelt key (`supports_visoin`) is an error, not a silent default.
  { additionalProperties: false },
);
export type ModelConfig = Static<typeof ModelConfigSchema>;

export const SandboxConfigSchema = Type.Object({
  /** Without bubblewrap, `bash` is hidden unless this is true. */
  allow_host_bash: Type.Boolean({ default: false }),
  /** Give the sandboxed `bash` network access. */
  network: Type.Boolean({ default: false }),
  bash_timeout_seconds: Type.Integer({ minimum: 1, default: 120 }),
  bash_output_limit_bytes: Type.Integer({ minimum: 1024, default: 65_536 }),
});
export type SandboxConfig = Static<typeof SandboxConfigSchema>;

export const SkillsConfigSchema = Type.Object({
  /** Folder with `public/` and `custom/`; relative paths are relative to the config file. */
  path: Type.Optional(Type.String()),
  /** Where the agent sees them. */
  container_path: Type.String({ default: '/mnt/skills' }),
});

export const TitleConfigSchema = Type.Object({
  enabled: Type.Boolean({ default: true }),
  max_words: Type.Integer({ minimum: 1, default: 6 }),
  max_chars: Type.Integer({ minimum: 1, default: 60 }),
  model_name: Type.Optional(Type.String()),
});

/** DeerFlow's follow-up chips (`/api/suggestions/config` answers these under the same names). */
export const SuggestionsConfigSchema = Type.Object({
  enabled: Type.Boolean({ default: true }),
  max_suggestions: Type.Integer({ minimum: 1, maximum: 5, default: 3 }),
});
export type SuggestionsConfig = Static<typeof SuggestionsConfigSchema>;

/** DeerFlow's polish button (`POST /api/input-polish`): off answers 404, as DeerFlow's does. */
export const InputPolishConfigSchema = Type.Object({
  enabled: Type.Boolean({ default: true }),
  max_chars: Type.Integer({ minimum: 1, default: 4000 }),
  /** Absent: the first configured model. */
  model_name: Type.Optional(Type.String()),
});
export type InputPolishConfig = Static<typeof InputPolishConfigSchema>;

export const SummarizationConfigSchema = Type.Object({
  enabled: Type.Boolean({ default: false }),
  model_name: Type.Optional(Type.String()),
  /** Summarise older messages once the conversation passes this many tokens. */
  trigger_tokens: Type.Integer({ minimum: 1, default: 80_000 }),
  /** Keep this many most recent messages verbatim. */
  keep_messages: Type.Integer({ minimum: 0, default: 20 }),
});
export type SummarizationConfig = Static<typeof SummarizationConfigSchema>;

/** DeerFlow's memory settings, under its names: what the user is remembered by, and its updates. */
export const MemoryConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true }),
    /** Turns within this many seconds of the first make one update (one model call per user). */
    debounce_seconds: Type.Integer({ minimum: 1, maximum: 300, default: 30 }),
    /** The model that revises the memory; null or absent: the first configured model. */
    model_name: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    /** Facts kept; past it the least confident go first. */
    max_facts: Type.Integer({ minimum: 10, maximum: 500, default: 100 }),
    /** A fact the model proposes is kept only this sure (facts added through the API always are). */
    fact_confidence_threshold: Type.Number({ minimum: 0, maximum: 1, default: 0.7 }),
    /** Whether the lead agent's system prompt includes the memory. */
    injection_enabled: Type.Boolean({ default: true }),
    /** Budget for that, in tokens estimated as characters / 4. */
    max_injection_tokens: Type.Integer({ minimum: 100, maximum: 8000, default: 2000 }),
  },
  { additionalProperties: false },
);
export type MemoryConfig = Static<typeof MemoryConfigSchema>;

export const SubagentsConfigSchema = Type.Object({
  enabled: Type.Boolean({ default: true }),
  max_concurrent: Type.Integer({ minimum: 1, default: 3 }),
  timeout_seconds: Type.Integer({ minimum: 1, default: 900 }),
});

/** Delivery of a run's `webhook` when it ends. */
export const WebhooksConfigSchema = Type.Object({
  /** Loopback and private addresses allowed as webhook targets (tests, intranets). */
  allow_private_networks: Type.Boolean({ default: false }),
  /** Attempts per delivery; a 5xx, 408, 429, time-out or connection error tries again. */
  max_attempts: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
  /** First retry delay; each later one doubles. */
  backoff_seconds: Type.Number({ exclusiveMinimum: 0, default: 2 }),
  timeout_seconds: Type.Number({ exclusiveMinimum: 0, default: 10 }),
});
export type WebhooksConfig = Static<typeof WebhooksConfigSchema>;

/** Semantic search over the store, as langgraph.json's `store.index` writes it. */
export const StoreIndexConfigSchema = Type.Object({
  /** `openai:<model>` or `ollama:<model>`: the embedding model. */
  embed: Type.String({ pattern: '^(openai|ollama):[^\\s]+$' }),
  dims: Type.Integer({ minimum: 1, maximum: 16_384 }),
  /** JSON paths of an item's value whose text is embedded; `$` is the whole value. */
  fields: Type.Array(NonEmpty, { minItems: 1, default: ['$'] }),
  /** The provider's API base (an OpenAI-compatible server, or Ollama's). */
  base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Kept as written (`$NAME` stays a reference) and resolved when the client is built. */
  api_key: Type.Optional(Type.String()),
  /** Megabytes of embeddings each process keeps in memory between searches. */
  cache_mb: Type.Integer({ minimum: 0, default: 256 }),
});
export type StoreIndexConfig = Static<typeof StoreIndexConfigSchema>;

/** Item lifetimes, as langgraph.json's `store.ttl` writes them (minutes). */
export const StoreTtlConfigSchema = Type.Object({
  /** Minutes an item lives when its write names no `ttl`; null keeps items until deleted. */
  default_ttl: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()], { default: null }),
  /** Whether a read restarts an item's TTL when it does not say (`refresh_ttl`). */
  refresh_on_read: Type.Boolean({ default: true }),
  /** How often expired items are removed (they read as absent from the moment they expire). */
  sweep_interval_minutes: Type.Number({ exclusiveMinimum: 0, default: 60 }),
});

/** The long-term store (LangGraph's BaseStore and `/store/items`). */
export const StoreConfigSchema = Type.Object({
  index: Type.Union([StoreIndexConfigSchema, Type.Null()], { default: null }),
  ttl: withDefault(StoreTtlConfigSchema),
});
export type StoreConfig = Static<typeof StoreConfigSchema>;

export const WebConfigSchema = Type.Object({
  /** `web_fetch`: URL to Markdown. */
  fetch_enabled: Type.Boolean({ default: true }),
  fetch_timeout_seconds: Type.Integer({ minimum: 1, default: 20 }),
  fetch_max_bytes: Type.Integer({ minimum: 1024, default: 5 * 1024 * 1024 }),
  /** Let web_fetch reach loopback and private addresses (off: the agent cannot probe your network). */
  fetch_allow_private_networks: Type.Boolean({ default: false }),
  /** `web_search`: off unless a provider is configured. */
  search_enabled: Type.Boolean({ default: false }),
  search_provider: Type.Union([Type.Literal('tavily'), Type.Literal('searxng')], { default: 'tavily' }),
  /** Tavily API key (or `$TAVILY_API_KEY`), read when a search runs. */
  search_api_key: Type.Optional(Type.String()),
  /** Tavily endpoint (default https://api.tavily.com/search) or the SearXNG base URL. */
  search_url: Type.Optional(Type.String()),
  search_max_results: Type.Integer({ minimum: 1, maximum: 50, default: 5 }),
});
export type WebConfig = Static<typeof WebConfigSchema>;

/** Text recognition of scanned PDF pages (and large images in PDFs) with Tesseract's CLI. */
export const OcrConfigSchema = Type.Object({
  /** On by default: it takes effect when `tesseract` is installed (else scans get a note). */
  enabled: Type.Boolean({ default: true }),
  /** Path to `tesseract`; default: found on PATH. */
  tesseract: Type.Optional(Type.String({ minLength: 1 })),
  /** Tesseract language codes (each needs its tesseract-ocr-<lang> package). */
  languages: Type.Array(Type.String({ pattern: '^[A-Za-z0-9_]+$' }), { minItems: 1, default: ['eng'] }),
  /** Budget for all OCR of one document, on top of conversion_timeout_seconds. */
  timeout_seconds: Type.Number({ exclusiveMinimum: 0, default: 60 }),
  /** Pages (and images) read by OCR per document; the Markdown names those left out. */
  max_pages: Type.Integer({ minimum: 1, default: 20 }),
  /** Address-space cap of one Tesseract run. */
  memory_mb: Type.Integer({ minimum: 128, default: 1024 }),
});

export const UploadsConfigSchema = Type.Object({
  max_files: Type.Integer({ minimum: 1, default: 10 }),
  max_file_mb: Type.Number({ exclusiveMinimum: 0, default: 50 }),
  max_request_mb: Type.Number({ exclusiveMinimum: 0, default: 100 }),
  /** Document conversions one API process runs at once; more wait their turn. */
  max_concurrent_conversions: Type.Integer({ minimum: 1, default: 2 }),
  conversion_timeout_seconds: Type.Number({ exclusiveMinimum: 0, default: 60 }),
  /** Cap on the heap, and separately on the buffers, of the worker thread a conversion runs in. */
  conversion_memory_mb: Type.Integer({ minimum: 64, default: 512 }),
  /**
   * Conversion threads each process starts at boot and keeps warm (converters loaded), so the
   * first documents skip that cost; at most max_concurrent_conversions.
   */
  warm_conversion_threads: Type.Integer({ minimum: 0, default: 0 }),
  ocr: withDefault(OcrConfigSchema),
});
export type UploadsConfig = Static<typeof UploadsConfigSchema>;

export const RuntimeConfigSchema = Type.Object({
  /** Steps a run may take when the client sends no `config.recursion_limit`. */
  default_recursion_limit: Type.Integer({ minimum: 1, default: 25 }),
  /** How long a finished run's event stream stays joinable. */
  stream_retention_seconds: Type.Integer({ minimum: 1, default: 3600 }),
  /** SSE comment heartbeat interval. */
  heartbeat_seconds: Type.Number({ exclusiveMinimum: 0, default: 10 }),
  /** Attempts before a run whose workers keep dying is failed. */
  max_attempts: Type.Integer({ minimum: 1, default: 3 }),
  /**
   * How long a worker's hold on a run lasts without renewal (it renews at half of it). A worker
   * that stops answering loses its runs to another worker within about this plus
   * `stalled_check_seconds`, and Redis refuses its writes from then on.
   */
  lock_seconds: Type.Number({ minimum: 0.5, default: 10 }),
  /** How often workers look for runs whose worker lost its hold. */
  stalled_check_seconds: Type.Number({ minimum: 0.25, default: 5 }),
  /**
   * The longest Redis outage a worker keeps its runs through: it goes on executing them, their
   * writes waiting for Redis, and continues once Redis is back (no run executed twice). Past it,
   * its runs are given up and taken over after the outage. At most 30: a worker's Redis commands
   * themselves give up after about 33 s of reconnecting.
   */
  outage_hold_seconds: Type.Number({ minimum: 0, maximum: 30, default: 30 }),
});

export const CorsConfigSchema = Type.Object({
  /** Allowed origins; `["*"]` allows any. Empty disables CORS. */
  origins: Type.Array(Type.String(), { default: ['*'] }),
  credentials: Type.Boolean({ default: false }),
});

/**
 * An API key: printable ASCII without spaces (it travels in a header), long enough that it cannot
 * be guessed by trying.
 */
export const ApiKeySchema = Type.String({ minLength: 16, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' });

/** An identity's role: an admin reaches every owner's records, a user only their own. */
export const RoleSchema = Type.Union([Type.Literal('user'), Type.Literal('admin')]);

/** A key that acts for a named user: `{key, user, role}` (role default `user`). */
export const UserApiKeySchema = Type.Object(
  {
    key: ApiKeySchema,
    user: Type.String({ minLength: 1, maxLength: 256 }),
    role: Type.Optional(RoleSchema),
  },
  { additionalProperties: false },
);
export type UserApiKey = Static<typeof UserApiKeySchema>;

/** Signature algorithms a JWKS (public keys) can verify; `none` and HMAC never are. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

/** Bearer JWTs from an OpenID Connect issuer, checked against its published keys (src/auth/jwt.ts). */
export const JwtConfigSchema = Type.Object(
  {
    /** The `iss` every token must carry; the discovery document is read from `<issuer>/.well-known/openid-configuration`. */
    issuer: Type.String({ pattern: '^https?://' }),
    /** The `aud` a token must name (one of these). */
    audience: Type.Union([NonEmpty, Type.Array(NonEmpty, { minItems: 1 })]),
    /** The issuer's JWKS; default: `jwks_uri` of the discovery document. */
    jwks_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** Leeway for `exp` and `nbf` against this host's clock. */
    clock_skew_seconds: Type.Integer({ minimum: 0, maximum: 600, default: 60 }),
    algorithms: Type.Array(Type.Union(JWT_ALGORITHMS.map((alg) => Type.Literal(alg))), { minItems: 1, default: [...JWT_ALGORITHMS] }),
    /** The claim naming the user (dots walk into objects: `ext.user`). */
    user_claim: Type.String({ minLength: 1, default: 'sub' }),
    /** The claim whose value (a string or a list) makes the role; absent: every token is a user. */
    role_claim: Type.Optional(NonEmpty),
    /** Values of `role_claim` that make an admin (any one of them). */
    admin_values: Type.Array(NonEmpty, { default: [] }),
    /** The claim holding permissions: a list, or a space-separated string as OAuth's `scope`. */
    permissions_claim: Type.Optional(NonEmpty),
    /** A token signed by a key not in the cached set refetches the JWKS, at most this often. */
    jwks_cooldown_seconds: Type.Number({ minimum: 0, default: 30 }),
    /** The JWKS is refetched when older than this, even if every key is known. */
    jwks_cache_max_age_seconds: Type.Number({ minimum: 0, default: 600 }),
    /** Budget of one fetch of the discovery document or the JWKS. */
    fetch_timeout_seconds: Type.Number({ exclusiveMinimum: 0, default: 5 }),
  },
  { additionalProperties: false },
);
export type JwtConfig = Static<typeof JwtConfigSchema>;

/** One OpenID Connect provider people sign in with (authorization code with PKCE; src/accounts/oidc-signin.ts). */
export const OidcProviderConfigSchema = Type.Object(
  {
    /** The button's label on DeerFlow's sign-in page. */
    display_name: NonEmpty,
    /** The issuer (`iss`); its discovery document is read from `<issuer>/.well-known/openid-configuration`. */
    issuer: Type.String({ pattern: '^https?://' }),
    client_id: NonEmpty,
    /** Best as a `$NAME` reference; absent for a public client (PKCE alone). */
    client_secret: Type.Optional(Type.String()),
    /** Default `openid email profile`. (Entries of a map get no schema defaults: the code applies them.) */
    scopes: Type.Optional(Type.Array(NonEmpty, { minItems: 1 })),
    /** Where the issuer sends the browser back; default: `<this request's origin>/api/v1/auth/callback/<id>`. */
    redirect_uri: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** Budget of one call to the issuer (discovery, keys, token); default 10. */
    fetch_timeout_seconds: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    /**
     * Whether a person this provider signs in for the first time gets a new account (DeerFlow's
     * per-provider switch of the same name; default true). Off, only an account already linked
     * to the provider's subject signs in; others land on `/login?error=sso_not_allowed`. Local
     * `self_registration` does not govern it: the provider decides who may sign in.
     */
    auto_create_users: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type OidcProviderConfig = Static<typeof OidcProviderConfigSchema>;

/**
 * Accounts for people: DeerFlow's `/api/v1/auth` (sign-in, set-up, sessions in a cookie). Off by
 * default; on, WARREN_SESSION_SECRET signs the sessions and every request needs a credential.
 */
export const AccountsConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: false }),
    /** Whether anyone may create an account (`POST /api/v1/auth/register`); the first one is made by `initialize`. */
    self_registration: Type.Boolean({ default: false }),
    /** How long a session lasts (a "remember me" cookie keeps it that long). */
    session_days: Type.Integer({ minimum: 1, maximum: 30, default: 7 }),
    /** Failed sign-ins per account, and per client address, before sign-in is refused (429) for `lockout_seconds`. */
    login_attempts: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
    lockout_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 300 }),
    /**
     * Proxies (addresses or CIDRs) whose `X-Real-IP` names the client and whose
     * `X-Forwarded-Proto`/`X-Forwarded-Host` name the scheme and host; nobody else's are read.
     */
    trusted_proxies: Type.Array(NonEmpty, { default: [] }),
    /** Where the browser lands after an OIDC sign-in (DeerFlow's UI); default: this server's own origin. */
    frontend_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** OIDC providers by id (`[A-Za-z0-9_-]+`), listed by `GET /api/v1/auth/providers`. */
    oidc: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }), OidcProviderConfigSchema, { default: {} }),
  },
  { additionalProperties: false },
);
export type AccountsConfig = Static<typeof AccountsConfigSchema>;

export const AuthConfigSchema = Type.Object(
  {
    /**
     * Keys that clients send as `x-api-key` or `Authorization: Bearer`. A plain key acts for the
     * anonymous admin (as before identities); `{key, user, role}` acts for that user. Write keys
     * as `$NAME`: a variable that is not set stops the start, so auth never turns off by accident.
     */
    api_keys: Type.Array(Type.Union([ApiKeySchema, UserApiKeySchema]), { default: [] }),
    /** Bearer JWTs from an OIDC issuer; absent: none accepted. */
    jwt: Type.Optional(JwtConfigSchema),
    /**
     * A LangGraph `Auth` instance, as `./path/to/auth.ts:auth` (relative to this file). When set it
     * alone authenticates and authorises; langgraph.json's `auth.path` lands here.
     */
    module: Type.Optional(NonEmpty),
    /** People's accounts and sessions (DeerFlow's sign-in); off by default. */
    accounts: withDefault(AccountsConfigSchema),
  },
  { additionalProperties: false },
);
export type AuthConfig = Static<typeof AuthConfigSchema>;

/** In-app request limits per user, counted in Redis (for deployments without a proxy that limits). */
export const RateLimitsConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: false }),
    /** Requests one user may make per window, across every API replica. */
    max: Type.Integer({ minimum: 1, default: 600 }),
    time_window_seconds: Type.Integer({ minimum: 1, default: 60 }),
    /** When Redis cannot count a request: let it through uncounted (true), or refuse it with 503 (false). */
    allow_on_redis_error: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);
export type RateLimitsConfig = Static<typeof RateLimitsConfigSchema>;

export const McpToolsConfigSchema = Type.Object({
  /**
   * Commands a stdio MCP server may start: bare names (looked up on PATH) or absolute paths.
   * An empty list refuses every stdio server. The rules are in src/config/mcp-stdio-policy.ts.
   */
  stdio_allowed_commands: Type.Array(Type.String({ pattern: '^(/.+|[A-Za-z0-9._+-]+)$' }), {
    default: [...DEFAULT_STDIO_ALLOWED_COMMANDS],
  }),
  /**
   * Whether an http or sse server may be on loopback, a private network or a link-local address.
   * Off: anyone who may PUT /api/mcp/config could otherwise point a worker at Redis or a cloud
   * metadata service. Turn it on for MCP servers on your own network.
   */
  allow_private_networks: Type.Boolean({ default: false }),
});

export const MetricsConfigSchema = Type.Object({
  /**
   * Port on which each worker serves its own Prometheus metrics (`GET /metrics`); null serves
   * none. WARREN_WORKER_METRICS_PORT overrides it per process (two workers on one host need two
   * ports). The API serves its metrics on its own port.
   */
  worker_port: Type.Union([Type.Integer({ minimum: 0, maximum: 65_535 }), Type.Null()], { default: null }),
  /** Address the workers' metrics listener binds to. */
  worker_host: Type.String({ minLength: 1, default: '0.0.0.0' }),
});

/** The queue dashboard's actions: absent or false, it only shows (read-only). */
export const QueueBoardConfigSchema = Type.Object(
  {
    /** Retry, clean, promote, pause, empty… from the dashboard; off by default, as they change runs. */
    actions: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

/** Admin pages served by the API (admins only; an open Warren's anonymous caller is one). */
export const AdminConfigSchema = Type.Object(
  {
    /** Bull Board at /admin/queues: `false` serves none; `true` or `{actions: false}` shows, read-only. */
    queues: Type.Union([Type.Boolean(), QueueBoardConfigSchema], { default: true }),
  },
  { additionalProperties: false },
);
export type AdminConfig = Static<typeof AdminConfigSchema>;

export const TracingConfigSchema = Type.Object({
  /**
   * OTLP/HTTP base URL of a trace collector (`http://collector:4318`; `/v1/traces` is added).
   * Null leaves it to the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT;
   * with neither set, tracing is off.
   */
  endpoint: Type.Union([Type.String({ pattern: '^https?://' }), Type.Null()], { default: null }),
  /** `service.name` prefix: the processes report as `<name>-api` and `<name>-worker`. */
  service_name: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', default: 'warren' }),
});
export type TracingConfig = Static<typeof TracingConfigSchema>;

/** What one chat platform's settings say of its users and its pace. */
interface ChatChannelBasis<User extends TSchema> {
  /** The platform's API address by default. */
  baseUrl: string;
  /** One allowed user's id, as the platform writes it. */
  userId: User;
  /** The shortest and the default wait between two edits of a streamed answer (the platform's rate limit). */
  editIntervalMs: { minimum: number; default: number };
}

/**
 * The settings every chat channel has, whatever the platform: whether it is on, the platform's
 * address, who may talk to the bot, what a message runs and as whom, and how often a streamed
 * answer is edited. Each platform's schema adds its protocol's own settings to these.
 */
function chatChannelSchema<User extends TSchema, Own extends TProperties>(basis: ChatChannelBasis<User>, own: Own) {
  return Type.Object(
    {
      enabled: Type.Boolean({ default: false }),
      /** The platform's API address (a local server, or a test's). */
      base_url: Type.String({ pattern: '^https?://', default: basis.baseUrl }),
      /** The user ids that may talk to the bot. Empty lets everyone who finds the bot in, which the worker warns about when it connects. */
      allowed_users: Type.Array(basis.userId, { default: [] }),
      /** The assistant (or graph id) each message runs. */
      assistant_id: Type.String({ minLength: 1, maxLength: 128, default: 'lead_agent' }),
      /** Steps each run may take; the spec gives 100 for channel paths. */
      recursion_limit: Type.Integer({ minimum: 1, default: 100 }),
      /** At least this long between two edits of a streamed answer in one chat. */
      edit_interval_ms: Type.Integer({ minimum: basis.editIntervalMs.minimum, default: basis.editIntervalMs.default }),
      /** The Warren user whose threads this channel's conversations are (they are made, and their runs admitted, as this user). */
      owner: Type.String({ minLength: 1, maxLength: 256, default: 'anonymous' }),
      ...own,
    },
    { additionalProperties: false },
  );
}

/**
 * Telegram: the bot polls the Bot API (getUpdates), so no public address is needed. One worker
 * process in the deployment holds the connection (workers/channels/). Allowed users are Telegram
 * user ids (numbers; @userinfobot tells yours); edits at most about once a second per chat.
 */
export const TelegramChannelConfigSchema = chatChannelSchema(
  { baseUrl: 'https://api.telegram.org', userId: Type.Integer(), editIntervalMs: { minimum: 100, default: 1000 } },
  {
    /** The token @BotFather gives, best as a `$NAME` reference; resolved when the channel starts. */
    bot_token: Type.Optional(Type.String()),
    /** How long one getUpdates call waits for a message (Telegram allows up to 50). */
    poll_timeout_seconds: Type.Integer({ minimum: 0, maximum: 50, default: 30 }),
    /** The bot's @username (without the @), for the `t.me/<bot>?start=<code>` link that connects a chat from the UI. */
    bot_username: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_]{3,64}$' })),
  },
);
export type TelegramChannelConfig = Static<typeof TelegramChannelConfigSchema>;

/**
 * Slack: an app with a bot user. In `socket` mode the worker holding the lease opens Slack's
 * Socket Mode WebSocket (no public address needed); in `events` mode Slack posts events to
 * `POST /api/channels/slack/events` on any API replica, signed with `signing_secret`. Either way
 * one worker process in the deployment answers (workers/channels/). Allowed users are Slack
 * member ids (`U…`); chat.update allows about one edit a second per channel.
 */
export const SlackChannelConfigSchema = chatChannelSchema(
  { baseUrl: 'https://slack.com/api/', userId: Type.String({ pattern: '^[A-Z0-9]{2,32}$' }), editIntervalMs: { minimum: 100, default: 1200 } },
  {
    /** How events arrive: the Socket Mode WebSocket, or the Events API over HTTP. */
    mode: Type.Union([Type.Literal('socket'), Type.Literal('events')], { default: 'socket' }),
    /** The Bot User OAuth Token (`xoxb-…`), best as a `$NAME` reference; resolved when the channel starts. */
    bot_token: Type.Optional(Type.String()),
    /** The app-level token (`xapp-…`, scope `connections:write`) that opens Socket Mode; a `$NAME` reference. */
    app_token: Type.Optional(Type.String()),
    /** The app's signing secret, which signs Events API requests; a `$NAME` reference. */
    signing_secret: Type.Optional(Type.String()),
  },
);
export type SlackChannelConfig = Static<typeof SlackChannelConfigSchema>;

/**
 * Feishu / Lark: the app holds the open platform's long connection (WebSocket, opened with the
 * official SDK), so no public address is needed; or Feishu posts events to
 * `POST /api/channels/feishu/events`. One worker process in the deployment answers. The address
 * is Feishu's, or `https://open.larksuite.com` for Lark; allowed users are open_ids (`ou_…`);
 * Feishu allows 5 updates a second of one message (the answer card).
 */
export const FeishuChannelConfigSchema = chatChannelSchema(
  { baseUrl: 'https://open.feishu.cn', userId: Type.String({ minLength: 1 }), editIntervalMs: { minimum: 200, default: 500 } },
  {
    /** The app's id (`cli_` and 16 hex digits, from the developer console). */
    app_id: Type.Optional(Type.String({ pattern: '^cli_[0-9a-fA-F]{16}$' })),
    /** The app's secret, best as a `$NAME` reference; resolved when the channel starts. */
    app_secret: Type.Optional(Type.String()),
    /** The event subscription's verification token and encrypt key (`$NAME` references), when the console sets them. */
    verification_token: Type.Optional(Type.String()),
    encrypt_key: Type.Optional(Type.String()),
    /**
     * How events arrive: `websocket`, the long connection (no public address needed); `events`,
     * Feishu's HTTP callback to POST /api/channels/feishu/events (needs verification_token, and
     * an address Feishu reaches); `both`.
     */
    mode: Type.Union([Type.Literal('websocket'), Type.Literal('events'), Type.Literal('both')], { default: 'websocket' }),
    /** Feishu's accounts server, where the UI's Lark set-up registers an app (`/oauth/v1/app/registration`). */
    accounts_url: Type.String({ pattern: '^https?://', default: 'https://accounts.feishu.cn' }),
    /** Lark's (the international brand's) open platform and accounts server, used for an app set up as `lark`. */
    lark_base_url: Type.String({ pattern: '^https?://', default: 'https://open.larksuite.com' }),
    lark_accounts_url: Type.String({ pattern: '^https?://', default: 'https://accounts.larksuite.com' }),
  },
);
export type FeishuChannelConfig = Static<typeof FeishuChannelConfigSchema>;

/**
 * The Redis every process connects to, when REDIS_URL is not set (REDIS_URL wins, whole: a
 * deployment's environment overrides its file, as elsewhere). `url` names one Redis (or a
 * cluster as `redis+cluster://…`, REDIS_URL's forms), `cluster.nodes` a Redis Cluster; one of
 * the two. The credentials and TLS apply to either (src/config/redis-target.ts).
 */
export const RedisConfigSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ pattern: '^rediss?(\\+cluster)?://' })),
    cluster: Type.Optional(
      Type.Object(
        {
          /** Any reachable nodes, `host:port` (`[::1]:7000` for IPv6); the client learns the rest. */
          nodes: Type.Array(Type.String({ pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[^\\s:@/,\\[\\]]+):[0-9]{1,5}$' }), { minItems: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    username: Type.Optional(NonEmpty),
    /** Best as a `$NAME` reference, so no password sits in the file. */
    password: Type.Optional(NonEmpty),
    /** TLS to every node (as `rediss://`); absent: as the url says (plain for `cluster`). */
    tls: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type RedisConfig = Static<typeof RedisConfigSchema>;

/** Chat platforms whose messages start runs. */
export const ChannelsConfigSchema = Type.Object(
  {
    /**
     * How long a worker holds a platform's connection without renewing it; a killed holder's
     * connection is taken over by another worker after this.
     */
    lease_seconds: Type.Number({ minimum: 1, default: 15 }),
    telegram: withDefault(TelegramChannelConfigSchema),
    slack: withDefault(SlackChannelConfigSchema),
    feishu: withDefault(FeishuChannelConfigSchema),
  },
  { additionalProperties: false },
);
export type ChannelsConfig = Static<typeof ChannelsConfigSchema>;

export const AppConfigSchema = Type.Object(
  {
    models: Type.Array(ModelConfigSchema, { default: [] }),
    /** assistant id → `builtin:lead_agent` or `<module path>:<export>`. */
    graphs: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$' }), NonEmpty, { default: {} }),
    /**
     * A LangGraph.js project's `langgraph.json` (relative to this file): its graphs join `graphs`
     * and its `env` reaches the environment (src/config/langgraph-json.ts).
     */
    langgraph_json: Type.Optional(NonEmpty),
    /**
     * This deployment's root URL as its own processes reach it (a load balancer in front of the
     * APIs, say): an SDK `new Client()` without a URL in a graph gets `<api_url>/api/langgraph`.
     * Absent: WARREN_API_URL, else http://127.0.0.1:PORT (one host, as `npm start` runs).
     */
    api_url: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
    /** Development mode: `POST /api/langgraph/internal/truncate` exists (never in production). */
    dev: Type.Boolean({ default: false }),
    sandbox: withDefault(SandboxConfigSchema),
    skills: withDefault(SkillsConfigSchema),
    title: withDefault(TitleConfigSchema),
    summarization: withDefault(SummarizationConfigSchema),
    suggestions: withDefault(SuggestionsConfigSchema),
    input_polish: withDefault(InputPolishConfigSchema),
    memory: withDefault(MemoryConfigSchema),
    subagents: withDefault(SubagentsConfigSchema),
    web: withDefault(WebConfigSchema),
    webhooks: withDefault(WebhooksConfigSchema),
    store: withDefault(StoreConfigSchema),
    uploads: withDefault(UploadsConfigSchema),
    runtime: withDefault(RuntimeConfigSchema),
    cors: withDefault(CorsConfigSchema),
    auth: withDefault(AuthConfigSchema),
    rate_limits: withDefault(RateLimitsConfigSchema),
    mcp: withDefault(McpToolsConfigSchema),
    metrics: withDefault(MetricsConfigSchema),
    tracing: withDefault(TracingConfigSchema),
    channels: withDefault(ChannelsConfigSchema),
    admin: withDefault(AdminConfigSchema),
    /** Absent: REDIS_URL, or a Redis on 127.0.0.1:6379. */
    redis: Type.Optional(RedisConfigSchema),
  },
  { additionalProperties: false },
);
export type AppConfig = Static<typeof AppConfigSchema>;
