// DeerFlow's /api/v1/auth shapes (f1f4af99b: routers/auth.py, auth/models.py), as its UI sends
// and reads them.
import { Type, type Static } from 'typebox';

const EmailSchema = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
/** Rules beyond a length cap are the service's (passwords.ts), so a refusal can name the rule. */
const PasswordSchema = Type.String({ minLength: 1, maxLength: 1024 });
/** A form field is a string; JSON sends a boolean. */
const RememberSchema = Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')]);

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  system_role: Type.Union([Type.Literal('admin'), Type.Literal('user')]),
  needs_setup: Type.Boolean(),
  oauth_provider: Type.Union([Type.String(), Type.Null()]),
});
export type User = Static<typeof UserSchema>;

/** `login/local`: DeerFlow's UI posts a form (`username`, `password`, `remember_me`); JSON with the same fields, or `email`, works too. */
export const LoginBodySchema = Type.Object(
  {
    username: Type.Optional(EmailSchema),
    email: Type.Optional(EmailSchema),
    password: PasswordSchema,
    remember_me: Type.Optional(RememberSchema),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBodySchema>;

export const LoginResponseSchema = Type.Object({
  /** Seconds the session lasts. */
  expires_in: Type.Integer(),
  needs_setup: Type.Boolean(),
});

/** `initialize` and `register`. */
export const NewAccountBodySchema = Type.Object(
  {
    email: EmailSchema,
    password: PasswordSchema,
    remember_me: Type.Optional(RememberSchema),
  },
  { additionalProperties: false },
);
export type NewAccountBody = Static<typeof NewAccountBodySchema>;

export const ChangePasswordBodySchema = Type.Object(
  {
    current_password: PasswordSchema,
    new_password: PasswordSchema,
    new_email: Type.Optional(Type.Union([EmailSchema, Type.Null()])),
    remember_me: Type.Optional(Type.Union([RememberSchema, Type.Null()])),
  },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBodySchema>;

export const MessageSchema = Type.Object({ message: Type.String() });

export const SetupStatusSchema = Type.Object({
  needs_setup: Type.Boolean(),
  registration_enabled: Type.Boolean(),
});
export type SetupStatus = Static<typeof SetupStatusSchema>;

export const ProvidersSchema = Type.Object({
  providers: Type.Array(Type.Object({ id: Type.String(), display_name: Type.String(), type: Type.Literal('oidc') })),
});
export type Providers = Static<typeof ProvidersSchema>;

export const ProviderParamsSchema = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64 }) });

export const OAuthStartQuerySchema = Type.Object(
  {
    next: Type.Optional(Type.String({ maxLength: 2048 })),
    remember_me: Type.Optional(RememberSchema),
  },
  { additionalProperties: false },
);
export type OAuthStartQuery = Static<typeof OAuthStartQuerySchema>;

/** What an OIDC provider sends back (RFC 6749 §4.1.2; `iss` from RFC 9207, `session_state` from some issuers). */
export const OAuthCallbackQuerySchema = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
  error_description: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type OAuthCallbackQuery = Static<typeof OAuthCallbackQuerySchema>;
