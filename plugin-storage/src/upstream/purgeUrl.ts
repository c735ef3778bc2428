/**
 * @module upstream/purgeUrl
 * The host's cache purge API: `POST {apiBase}/purge?url=<url>&async=false` with the account's
 * `AccessKey` header (bunny.net "Purge URL"). Evicts one URL from the pull zone's edge caches.
 */
import { UpstreamError } from '../errors.js'
import { upstreamFetch } from './upstreamFetch.js'

export interface PurgeApiConfig {
  /** Account API base, e.g. `https://api.bunny.net`. */
  apiBase: string
  /** Account API key (never logged). */
  apiKey: string
}

/** A purge is a small control call: give up after this long rather than hold a save (ms). */
const PURGE_TIMEOUT_MS = 15_000

/** Purges one URL; throws an {@link UpstreamError} (status only, no key, no body) when the host refuses or cannot be reached. */
export async function purgeUrl(c: PurgeApiConfig, url: string): Promise<void> {
  const res = await upstreamFetch('Purging a CDN URL', `${c.apiBase}/purge?url=${encodeURIComponent(url)}&async=false`, {
    headers: { AccessKey: c.apiKey },
    method: 'POST',
    signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
  })
  // The body is never read into a message: only the status counts.
  await res.body?.cancel()
  if (!res.ok) throw new UpstreamError('Purging a CDN URL', res.status)
}
