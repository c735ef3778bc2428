/**
 * @module plugin-openapi/operations/security
 * Security schemes for how Payload carries credentials: `Authorization: JWT <token>` (or `Bearer`), the
 * `<cookiePrefix>-token` cookie, and `Authorization: <slug> API-Key <key>` per auth collection with `useAPIKey`.
 */
import type { SanitizedConfig } from 'payload'

import { pascalCase } from '../schemas/jsonSchema.js'

export type SecurityRequirement = Record<string, string[]>

export interface Security {
  schemes: Record<string, Record<string, unknown>>
  /** Any credential, or none: access control decides (public access is possible). */
  optional: SecurityRequirement[]
  /** Any credential; anonymous requests are refused. */
  required: SecurityRequirement[]
}

/** Builds the schemes of a config. */
export function buildSecurity(config: SanitizedConfig): Security {
  const cookieName = `${config.cookiePrefix ?? 'payload'}-token`
  const schemes: Security['schemes'] = {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The token from login, as `Authorization: Bearer <token>`; Payload also accepts `Authorization: JWT <token>`.',
    },
    cookieAuth: {
      type: 'apiKey',
      in: 'cookie',
      name: cookieName,
      description: `The \`${cookieName}\` cookie set by login. When \`csrf\` lists origins it counts only for a request whose Origin is listed (without Origin: \`Sec-Fetch-Site\` same-origin, same-site or none).`,
    },
  }
  for (const c of config.collections) {
    if (c.auth && (c.auth as { useAPIKey?: unknown }).useAPIKey) {
      schemes[`${pascalCase(c.slug)}ApiKey`] = {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: `API key of a \`${c.slug}\` user, sent as \`Authorization: ${c.slug} API-Key <key>\`.`,
      }
    }
  }
  const required = Object.keys(schemes).map((name) => ({ [name]: [] }))
  return { optional: [...required, {}], required, schemes }
}
