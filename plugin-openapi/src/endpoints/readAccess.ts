/**
 * @module plugin-openapi/endpoints/readAccess
 * The `access` option of the description and docs routes: one check before each of their handlers.
 */
import type { PayloadRequest } from 'payload'

import type { OpenAPIPluginOptions } from '../types.js'

/** A 403 in Payload's error shape when `access` refuses the request; undefined when it may read. */
export async function refusedRead(req: PayloadRequest, options: OpenAPIPluginOptions): Promise<Response | undefined> {
  if (!options.access || (await options.access({ req }))) return undefined
  return Response.json({ errors: [{ message: 'You are not allowed to read the API description.' }] }, { status: 403 })
}

/**
 * The request's own origin when its host is one of `trustedHosts` (`X-Forwarded-Host`/`Host`, with
 * `X-Forwarded-Proto` or the request's protocol); undefined otherwise.
 */
export function trustedOrigin(req: PayloadRequest, trustedHosts: readonly string[] = []): string | undefined {
  if (trustedHosts.length === 0) return undefined
  const host = (req.headers.get('x-forwarded-host') ?? req.headers.get('host') ?? '').split(',')[0]!.trim().toLowerCase()
  const trusted = trustedHosts.map((h) => h.toLowerCase())
  if (!host || !(trusted.includes(host) || trusted.includes(host.replace(/:\d+$/, '')))) return undefined
  const forwarded = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim()
  const protocol = forwarded === 'http' || forwarded === 'https' ? forwarded : req.url ? new URL(req.url).protocol.replace(':', '') : 'https'
  return `${protocol}://${host}`
}
