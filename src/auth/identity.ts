// Who a request acts for. The auth plugin sets `request.identity` on every request before any
// route runs; services receive it from their routes and never read it from anywhere else.
//
// With no authentication configured, every request is the anonymous admin: one owner, every
// record reachable, as the spec describes an open Warren.
import { Type, type Static } from 'typebox';

export const IdentitySchema = Type.Object({
  /** The owner written on every record this identity creates. */
  user: Type.String({ minLength: 1, maxLength: 256 }),
  /** An admin reaches every owner's records; a user only their own. */
  role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  /** Free-form permissions from the authenticator (LangGraph's `permissions`), passed to access handlers. */
  permissions: Type.Array(Type.String()),
  /**
   * What a custom auth module's `authenticate` answered beyond `identity`, `permissions` and
   * `role` (`display_name`, `org_id`…): its access handlers see them on `user`, as in LangGraph.
   */
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type Identity = Static<typeof IdentitySchema>;

/** The owner of everything an open Warren (or a plain API key) creates. */
export const ANONYMOUS_USER = 'anonymous';

export const ANONYMOUS: Identity = Object.freeze({ user: ANONYMOUS_USER, role: 'admin', permissions: Object.freeze([]) as unknown as string[] });

export const isAdmin = (identity: Identity): boolean => identity.role === 'admin';

/** Whether `identity` may reach a record owned by `owner` (records from before owners count as the anonymous user's). */
export const mayReach = (identity: Identity, owner: string | null | undefined): boolean =>
  isAdmin(identity) || identity.user === (owner ?? ANONYMOUS_USER);

/**
 * Warren itself acting for a user: a cron tick, a chat message. What it runs was checked when the
 * cron (or the channel) was set up, so it passes every check; what it makes is the user's.
 */
export const actingFor = (user: string): Identity => ({ user, role: 'admin', permissions: [] });

/** What a search adds to read only the identity's records: nothing for an admin, who reads them all. */
export const ownerFilter = (identity: Identity): { owner?: string } => (isAdmin(identity) ? {} : { owner: identity.user });

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth plugin on every request (the anonymous admin when auth is off). */
    identity: Identity;
  }
}
