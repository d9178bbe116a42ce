// /api/channels: the chat platforms' connections.
import { Type, type Static } from 'typebox';

export const ChannelStatusSchema = Type.Object({
  name: Type.String(),
  /** Switched on in config.yaml (`channels.<name>.enabled`). */
  enabled: Type.Boolean(),
  /** A worker holds the connection and its last call to the platform succeeded. */
  connected: Type.Boolean(),
  /** The worker holding the connection (its instance id), if one does. */
  holder: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  updated_at: Type.Union([Type.String(), Type.Null()]),
});
export type ChannelStatus = Static<typeof ChannelStatusSchema>;

export const ChannelListSchema = Type.Object({ channels: Type.Array(ChannelStatusSchema) });
export type ChannelList = Static<typeof ChannelListSchema>;

export const ChannelParamsSchema = Type.Object({ name: Type.String({ maxLength: 64 }) });

export const ChannelRestartReplySchema = Type.Object({ name: Type.String(), restarting: Type.Boolean(), message: Type.String() });
export type ChannelRestartReply = Static<typeof ChannelRestartReplySchema>;
