// /api/integrations/lark/*, in the shapes DeerFlow's Integrations settings read and send.
import { Type, type Static } from 'typebox';

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()]);
const Brand = Type.Union([Type.Literal('feishu'), Type.Literal('lark')]);

export const LarkIntegrationStatusSchema = Type.Object({
  installed: Type.Boolean(),
  version: Type.String(),
  manifest_version: Nullable(Type.String()),
  latest_available_version: Nullable(Type.String()),
  runtime_version_mismatch: Type.Boolean(),
  /** A Feishu/Lark app's credentials are set (saved from the UI, or in config.yaml). */
  app_configured: Type.Boolean(),
  app_id: Nullable(Type.String()),
  app_brand: Nullable(Type.String()),
  skills_expected: Type.Integer(),
  skills_installed: Type.Integer(),
  installed_skills: Type.Array(Type.String()),
  enabled_skills: Type.Array(Type.String()),
  install_path: Type.String(),
  cli: Type.Object({ available: Type.Boolean(), path: Nullable(Type.String()), version: Nullable(Type.String()), error: Nullable(Type.String()) }),
  /** `authenticated` once the caller's Lark account is connected to them (a Feishu channel connection). */
  auth: Type.Object({ status: Type.String(), message: Nullable(Type.String()), user: Nullable(Type.String()), verified: Type.Boolean() }),
  sandbox_runtime_mode: Type.String(),
  sandbox_runtime_ready: Type.Boolean(),
  sandbox_runtime_detail: Nullable(Type.String()),
});
export type LarkIntegrationStatus = Static<typeof LarkIntegrationStatusSchema>;

export const LarkInstallSchema = Type.Object({ success: Type.Boolean(), installed_skills: Type.Array(Type.String()), message: Type.String(), status: LarkIntegrationStatusSchema });
export type LarkInstall = Static<typeof LarkInstallSchema>;

export const LarkConfigStartBodySchema = Type.Object({ brand: Type.Optional(Brand) }, { additionalProperties: false });
export type LarkConfigStartBody = Static<typeof LarkConfigStartBodySchema>;

export const LarkConfigStartSchema = Type.Object({
  verification_url: Type.String(),
  device_code: Type.String(),
  generation: Type.String(),
  expires_in: Nullable(Type.Integer()),
  interval: Nullable(Type.Integer()),
  user_code: Nullable(Type.String()),
  brand: Brand,
});
export type LarkConfigStart = Static<typeof LarkConfigStartSchema>;

export const LarkConfigCompleteBodySchema = Type.Object(
  {
    device_code: Type.String({ minLength: 1, maxLength: 512 }),
    generation: Type.String({ minLength: 1, maxLength: 64 }),
    brand: Type.Optional(Brand),
    interval: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 600 }))),
    expires_in: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400 }))),
  },
  { additionalProperties: false },
);
export type LarkConfigCompleteBody = Static<typeof LarkConfigCompleteBodySchema>;

export const LarkConfigCredentialsBodySchema = Type.Object(
  { app_id: Type.String({ maxLength: 128 }), app_secret: Type.String({ maxLength: 512 }), brand: Type.Optional(Brand) },
  { additionalProperties: false },
);
export type LarkConfigCredentialsBody = Static<typeof LarkConfigCredentialsBodySchema>;

export const LarkConfigCompleteSchema = Type.Object({ success: Type.Boolean(), message: Type.String(), generation: Type.String(), status: LarkIntegrationStatusSchema });
export type LarkConfigComplete = Static<typeof LarkConfigCompleteSchema>;

export const LarkAuthStartBodySchema = Type.Object(
  {
    recommend: Type.Optional(Type.Boolean()),
    domains: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 })),
    scope: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    generation: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  },
  { additionalProperties: false },
);
export type LarkAuthStartBody = Static<typeof LarkAuthStartBodySchema>;

export const LarkAuthStartSchema = Type.Object({
  verification_url: Type.String(),
  device_code: Type.String(),
  generation: Type.String(),
  expires_in: Nullable(Type.Integer()),
  user_code: Nullable(Type.String()),
  hint: Nullable(Type.String()),
});
export type LarkAuthStart = Static<typeof LarkAuthStartSchema>;

export const LarkAuthCompleteBodySchema = Type.Object(
  {
    device_code: Type.String({ minLength: 1, maxLength: 512 }),
    generation: Type.String({ minLength: 1, maxLength: 64 }),
    wait_timeout_seconds: Type.Integer({ minimum: 5, maximum: 45, default: 45 }),
  },
  { additionalProperties: false },
);
export type LarkAuthCompleteBody = Static<typeof LarkAuthCompleteBodySchema>;

export const LarkAuthCompleteSchema = Type.Object({ success: Type.Boolean(), message: Type.String(), status: LarkIntegrationStatusSchema });
export type LarkAuthComplete = Static<typeof LarkAuthCompleteSchema>;
