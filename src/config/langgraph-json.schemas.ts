// `langgraph.json`, the LangGraph CLI's project file, as Warren reads it (src/config/langgraph-json.ts).
import { Type, type Static } from 'typebox';

const GraphPath = Type.String({ minLength: 1 });

/** `http.cors`, as LangGraph's server reads it (served by @fastify/cors in place of config.yaml's `cors`). */
export const ProjectCorsSchema = Type.Object(
  {
    allow_origins: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    allow_origin_regex: Type.Optional(Type.String({ minLength: 1 })),
    allow_methods: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    allow_headers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    allow_credentials: Type.Optional(Type.Boolean()),
    expose_headers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    max_age: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type ProjectCors = Static<typeof ProjectCorsSchema>;

/** Header names or patterns with `*` (the only wildcard LangGraph allows). */
const HeaderPatterns = Type.Array(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$' }));

/**
 * `http`: a custom app (`./path.ts:export`, any object with `fetch(Request)`, a Hono app as
 * LangGraph takes), route groups switched off, CORS, and which request headers join a run's
 * `config.configurable`. `disable_meta` is accepted only as false: /ok, /info and /metrics are
 * Warren's own and stay (langgraph-json.ts says so).
 */
export const ProjectHttpSchema = Type.Object(
  {
    app: Type.Optional(GraphPath),
    disable_assistants: Type.Optional(Type.Boolean()),
    disable_threads: Type.Optional(Type.Boolean()),
    disable_runs: Type.Optional(Type.Boolean()),
    disable_store: Type.Optional(Type.Boolean()),
    disable_meta: Type.Optional(Type.Boolean()),
    cors: Type.Optional(ProjectCorsSchema),
    configurable_headers: Type.Optional(
      Type.Object({ includes: Type.Optional(HeaderPatterns), excludes: Type.Optional(HeaderPatterns) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type ProjectHttp = Static<typeof ProjectHttpSchema>;

export const LangGraphJsonSchema = Type.Object(
  {
    /** graph id → `./path/to/file.ts:export` (or `{path, description}`), relative to the file. */
    graphs: Type.Record(
      Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$' }),
      Type.Union([GraphPath, Type.Object({ path: GraphPath, description: Type.Optional(Type.String()) }, { additionalProperties: false })]),
    ),
    /** A `.env` file (relative to the file), variables by name, or names the environment provides. */
    env: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Record(Type.String(), Type.String()), Type.Array(Type.String())])),
    /** Project directories (relative to the file); for a JS project, where its packages are installed. */
    dependencies: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /**
     * A custom auth module: `path` is `./path/to/auth.ts:export` (relative to the file), an `Auth`
     * instance from `@langchain/langgraph-sdk/auth`; it becomes config.yaml's `auth.module`.
     * `disable_studio_auth` and `openapi` are accepted and mean nothing here (Warren has no
     * Studio sign-in to bypass, and documents its own security schemes).
     */
    auth: Type.Optional(
      Type.Object(
        { path: GraphPath, disable_studio_auth: Type.Optional(Type.Boolean()), openapi: Type.Optional(Type.Unknown()), cache: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
    ),
    /**
     * Generative UI: graph id (the namespace `LoadExternalComponent` asks for) → the `.tsx` file
     * (relative to the file) whose default export maps component names to React components.
     * Bundled at start by `@langchain/langgraph-ui` (src/ui/ui-bundles.ts). The ids are checked
     * in langgraph-json.ts, whose message names the one that cannot be a URL segment.
     */
    ui: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1 }))),
    /** `shared`: packages the page provides, left out of every bundle as React is. */
    ui_config: Type.Optional(Type.Object({ shared: Type.Optional(Type.Array(Type.String({ minLength: 1 }))) }, { additionalProperties: false })),
    http: Type.Optional(ProjectHttpSchema),
    /** The long-term store's `index` and `ttl`: checked as config.yaml's `store` (load-config.ts). */
    store: Type.Optional(Type.Unknown()),
  },
  // The other keys are sorted out by name in langgraph-json.ts: build-time ones are ignored,
  // runtime ones Warren does not implement are refused.
  { additionalProperties: true },
);
export type LangGraphJson = Static<typeof LangGraphJsonSchema>;
