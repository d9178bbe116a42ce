// /api/channels/providers, /connections, /{provider}/connect and /{provider}/runtime-config, in
// the shapes DeerFlow's Channels settings read.
import { Type, type Static } from 'typebox';

export const ProviderParamsSchema = Type.Object({ provider: Type.String({ maxLength: 64 }) });
export const ConnectionParamsSchema = Type.Object({ connection_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const CredentialFieldSchema = Type.Object({
  name: Type.String(),
  label: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
});

export const ChannelProviderSchema = Type.Object({
  provider: Type.String(),
  display_name: Type.String(),
  enabled: Type.Boolean(),
  /** Credentials are there: saved from the UI, or in config.yaml. */
  configured: Type.Boolean(),
  /** A user may connect a chat account now: configured, and a worker runs the platform. */
  connectable: Type.Boolean(),
  unavailable_reason: Type.Union([Type.String(), Type.Null()]),
  auth_mode: Type.String(),
  /** `connected` when the caller has a chat account bound here (or the platform answers them without one). */
  connection_status: Type.String(),
  credential_fields: Type.Array(CredentialFieldSchema),
  /** The credentials in effect; secrets always read as `********`. */
  credential_values: Type.Record(Type.String(), Type.String()),
});
export type ChannelProvider = Static<typeof ChannelProviderSchema>;

export const ChannelProvidersSchema = Type.Object({ enabled: Type.Boolean(), providers: Type.Array(ChannelProviderSchema) });
export type ChannelProviders = Static<typeof ChannelProvidersSchema>;

export const ChannelConnectionSchema = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  status: Type.String(),
  external_account_id: Type.Union([Type.String(), Type.Null()]),
  external_account_name: Type.Union([Type.String(), Type.Null()]),
  workspace_id: Type.Union([Type.String(), Type.Null()]),
  workspace_name: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  /** `source` (`binding`, `runtime-config` or `config.yaml`) and `read_only`, with the platform's status for the latter two. */
  metadata: Type.Record(Type.String(), Type.Unknown()),
});
export type ChannelConnection = Static<typeof ChannelConnectionSchema>;

export const ChannelConnectionsSchema = Type.Object({ connections: Type.Array(ChannelConnectionSchema) });
export type ChannelConnections = Static<typeof ChannelConnectionsSchema>;

export const ChannelConnectSchema = Type.Object({
  provider: Type.String(),
  mode: Type.String(),
  url: Type.Union([Type.String(), Type.Null()]),
  code: Type.String(),
  instruction: Type.String(),
  expires_in: Type.Integer(),
});
export type ChannelConnect = Static<typeof ChannelConnectSchema>;

export const RuntimeConfigBodySchema = Type.Object(
  { values: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), { default: {} }) },
  { additionalProperties: false },
);
export type RuntimeConfigBody = Static<typeof RuntimeConfigBodySchema>;
