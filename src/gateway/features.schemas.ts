// GET /api/features, in DeerFlow's shape: the UI shows a feature's pages only when it is enabled.
import { Type, type Static } from 'typebox';

const FlagSchema = Type.Object({ enabled: Type.Boolean() });

export const FeaturesSchema = Type.Object({
  agents_api: FlagSchema,
  browser_control: FlagSchema,
  mcp_tasks: FlagSchema,
  /** Warren's own addition: POST /api/webhooks/github is not served. */
  github_webhooks: FlagSchema,
  /** Warren's own addition: the Channels settings routes (/api/channels/providers, /connections, /{provider}/connect, /runtime-config). */
  channel_connections: FlagSchema,
  /** Warren's own addition: /api/integrations/lark/*, as far as they set up the Feishu/Lark channel. */
  lark_integration: FlagSchema,
});
export type Features = Static<typeof FeaturesSchema>;
