// POST /api/channels/feishu/events: Feishu's HTTP event callback.
import { Type, type Static } from 'typebox';

/** The body as Feishu sent it (kept as text: the signature covers its exact bytes). */
export const FeishuEventBodySchema = Type.String({ maxLength: 1024 * 1024 });

export const FeishuEventHeadersSchema = Type.Object({
  'x-lark-request-timestamp': Type.Optional(Type.String({ maxLength: 64 })),
  'x-lark-request-nonce': Type.Optional(Type.String({ maxLength: 256 })),
  'x-lark-signature': Type.Optional(Type.String({ maxLength: 256 })),
});
export type FeishuEventHeaders = Static<typeof FeishuEventHeadersSchema>;

/** The answer to Feishu's url_verification, or to an event (taken in, or not one Warren reads). */
export const FeishuEventReplySchema = Type.Union([Type.Object({ challenge: Type.String() }), Type.Object({ ok: Type.Boolean() })]);
export type FeishuEventReply = Static<typeof FeishuEventReplySchema>;
