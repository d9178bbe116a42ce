// GET /api/features, in DeerFlow's shape: the UI shows a feature's pages only when it is enabled.
import { Type, type Static } from 'typebox';

const FlagSchema = Type.Object({ enabled: Type.Boolean() });

export const FeaturesSchema = Type.Object({
  agents_api: FlagSchema,
  browser_control: FlagSchema,
  mcp_tasks: FlagSchema,
  /** Warren's own addition: POST /api/webhooks/github is not served. */
  github_webhooks: FlagSchema,
});
export type Features = Static<typeof FeaturesSchema>;
