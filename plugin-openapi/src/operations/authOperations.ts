/**
 * @module plugin-openapi/operations/authOperations
 * Builders of the operations auth collections mount (login, me, logout, refresh, passwords, verify, API key, init, first user).
 */
import { nullable, objectSchema, type Schema } from '../schemas/jsonSchema.js'
import { operation, pathParam, withArticle, type BuildContext, type BuiltOperations, type Scope } from './context.js'
import { errors, json, message } from './responses.js'

type CollectionScope = Extract<Scope, { kind: 'collection' }>

interface LoginWithUsername {
  allowEmailLogin?: boolean
}

/** How a user is identified: `email` by default, `username` with loginWithUsername, either with allowEmailLogin. */
function identity(s: CollectionScope): { properties: Record<string, Schema>; anyOfRequired: string[] } {
  const lwu = (s.collection.auth as { loginWithUsername?: LoginWithUsername | boolean }).loginWithUsername
  if (!lwu) return { properties: { email: { type: 'string', format: 'email' } }, anyOfRequired: ['email'] }
  const allowEmail = typeof lwu === 'object' && lwu.allowEmailLogin
  if (!allowEmail) return { properties: { username: { type: 'string' } }, anyOfRequired: ['username'] }
  return { properties: { email: { type: 'string', format: 'email' }, username: { type: 'string' } }, anyOfRequired: ['email', 'username'] }
}

function identityBody(s: CollectionScope, extra: Record<string, Schema>, extraRequired: string[]): Schema {
  const id = identity(s)
  const schema = objectSchema({ ...id.properties, ...extra }, id.anyOfRequired.length === 1 ? [...id.anyOfRequired, ...extraRequired] : extraRequired)
  if (id.anyOfRequired.length > 1) schema.anyOf = id.anyOfRequired.map((n) => ({ required: [n] }))
  return schema
}

const jsonBody = (schema: Schema, required = true) => ({ required, content: { 'application/json': { schema } } })

const userWithToken = (b: BuildContext, s: CollectionScope): Schema =>
  objectSchema({ message: { type: 'string' }, user: b.registry.collectionSchema(s.slug, 'read'), token: { type: 'string' }, exp: { type: 'integer' } }, [
    'message',
    'user',
  ])

export const authOperations = {
  me(b: BuildContext, s: CollectionScope): BuiltOperations {
    const schema = objectSchema(
      {
        user: nullable(b.registry.collectionSchema(s.slug, 'read')),
        collection: { type: 'string' },
        strategy: { type: 'string' },
        token: { type: 'string' },
        exp: { type: 'integer' },
        message: { type: 'string' },
      },
      ['user'],
    )
    // CMS 4 reads the user's own document with access control: a user who may not read it gets 403.
    return {
      '/me': operation({
        id: `me${s.name}`,
        summary: `The logged-in ${s.labels.singular} (or null)`,
        tag: s.tag,
        responses: { 200: json('Current user.', schema), ...errors(403) },
        security: b.security.optional,
      }),
    }
  },
  logout(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/logout': operation({
        id: `logout${s.name}`,
        summary: 'Log out: ends the session and expires the cookie',
        tag: s.tag,
        // 400 without a user; 403 "Incorrect collection" for a user of another auth collection.
        responses: { 200: json('Logged out.', message()), ...errors(400), ...(b.config.collections.filter((c) => c.auth).length > 1 ? errors(403) : {}) },
        security: b.security.required,
      }),
    }
  },
  refresh(b: BuildContext, s: CollectionScope): BuiltOperations {
    const schema = objectSchema(
      {
        message: { type: 'string' },
        refreshedToken: { type: 'string' },
        exp: { type: 'integer' },
        user: b.registry.collectionSchema(s.slug, 'read'),
        strategy: { type: 'string' },
        setCookie: { type: 'boolean' },
      },
      ['message', 'refreshedToken'],
    )
    return {
      '/refresh-token': operation({
        id: `refreshToken${s.name}`,
        summary: 'Refresh the token',
        tag: s.tag,
        responses: { 200: json('New token.', schema), ...errors(401, 403) },
        security: b.security.required,
      }),
    }
  },
  login(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/login': operation({
        id: `login${s.name}`,
        summary: `Log in as ${withArticle(s.labels.singular)}`,
        tag: s.tag,
        requestBody: jsonBody(identityBody(s, { password: { type: 'string', format: 'password' } }, ['password'])),
        responses: { 200: json('Logged in; the token is also set as a cookie.', userWithToken(b, s)), ...errors(400, 401, 403) },
        security: [],
      }),
    }
  },
  forgotPassword(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/forgot-password': operation({
        id: `forgotPassword${s.name}`,
        summary: 'Send a password reset email',
        tag: s.tag,
        requestBody: jsonBody(identityBody(s, {}, [])),
        responses: { 200: json('Sent (also when the user does not exist).', message()), ...errors(400) },
        security: [],
      }),
    }
  },
  resetPassword(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/reset-password': operation({
        id: `resetPassword${s.name}`,
        summary: 'Set a new password with a reset token',
        tag: s.tag,
        requestBody: jsonBody(objectSchema({ token: { type: 'string' }, password: { type: 'string', format: 'password' } }, ['token', 'password'])),
        responses: { 200: json('Password reset; logged in.', userWithToken(b, s)), ...errors(400, 403) },
        security: [],
      }),
    }
  },
  unlock(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/unlock': operation({
        id: `unlock${s.name}`,
        summary: 'Unlock a user locked after failed logins',
        tag: s.tag,
        requestBody: jsonBody(identityBody(s, {}, [])),
        responses: { 200: json('Unlocked.', message()), ...errors(400, 403) },
        security: b.security.optional,
      }),
    }
  },
  verify(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/verify/{id}': operation({
        id: `verify${s.name}`,
        summary: 'Verify an email address with the token sent by email',
        tag: s.tag,
        parameters: [pathParam('id', { type: 'string' }, 'The verification token.')],
        responses: { 200: json('Verified.', message()), ...errors(400, 403) },
        security: [],
      }),
    }
  },
  revealAPIKey(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/{id}/api-key/reveal': operation({
        id: `reveal${s.name}APIKey`,
        summary: "Reveal a user's API key",
        tag: s.tag,
        parameters: [pathParam('id', b.registry.idSchema(s.slug))],
        responses: { 200: json('The key.', objectSchema({ apiKey: nullable({ type: 'string' }) }, ['apiKey'])), ...errors(401, 403, 404) },
        security: b.security.required,
      }),
    }
  },
  init(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/init': operation({
        id: `init${s.name}`,
        summary: 'Whether a first user exists',
        tag: s.tag,
        responses: { 200: json('Initialised or not.', objectSchema({ initialized: { type: 'boolean' } }, ['initialized'])) },
        security: [],
      }),
    }
  },
  registerFirstUser(b: BuildContext, s: CollectionScope): BuiltOperations {
    return {
      '/first-register': operation({
        id: `registerFirst${s.name}`,
        summary: 'Create the first user (only while none exists)',
        tag: s.tag,
        requestBody: jsonBody(b.registry.collectionSchema(s.slug, 'create')),
        responses: { 200: json('Registered and logged in.', userWithToken(b, s)), ...errors(400, 403) },
        security: [],
      }),
    }
  },
}
