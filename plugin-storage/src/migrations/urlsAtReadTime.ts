/**
 * @module migrations/urlsAtReadTime
 * Documents written before URLs were computed at read time stored absolute host URLs: a video's
 * `hostData.stream.playlistUrl`, `thumbnailUrl` and `resolutions[].url`, and (with `storage.publicUrls`)
 * an image's `url` and each size's `url` on the pull zone. Restored on other ports, or after a move of
 * the CDN hostname, pull zone or library, they pointed at the old place. This rewrites them to what is
 * stored now (nothing for the player URLs, the rendition's file name, Payload's own relative file route
 * for `url`), through Payload's local API, so on every database adapter; readers then get URLs from the
 * options in force. Idempotent: a document already in the new form is not written again.
 */
import type { Payload, PayloadRequest } from 'payload'

import { INTERNAL_UPDATE_CONTEXT, PLUGIN_SLUG } from '../constants.js'
import { SKIP_UPLOAD_HOOKS } from '../wiring/uploadHooks.js'

type Doc = Record<string, unknown> & {
  id: number | string
  url?: unknown
  sizes?: Record<string, { url?: unknown } | null> | null
  hostData?: { stream?: { playlistUrl?: unknown; thumbnailUrl?: unknown; resolutions?: Array<{ url?: unknown }> | null } | null } | null
}

const isAbsolute = (value: unknown): boolean => typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(value)

/** What a stored document must change (undefined: nothing). */
function rewrite(doc: Doc, stream: boolean): Record<string, unknown> | undefined {
  if (stream) {
    const s = doc.hostData?.stream
    if (!s) return undefined
    const stale = s.playlistUrl || s.thumbnailUrl || (s.resolutions ?? []).some((r) => typeof r.url === 'string' && r.url.includes('/'))
    // The hostData field's hooks store the new form of whatever is written (no URLs, file names).
    return stale ? { hostData: { stream: { ...s } } } : undefined
  }
  const sizes = Object.entries(doc.sizes ?? {}).filter(([, size]) => isAbsolute(size?.url))
  if (!isAbsolute(doc.url) && sizes.length === 0) return undefined
  // `null`: Payload's own hook stores its relative file route from the file name.
  return {
    ...(isAbsolute(doc.url) ? { url: null } : {}),
    ...(sizes.length ? { sizes: Object.fromEntries(sizes.map(([name, size]) => [name, { ...size, url: null }])) } : {}),
  }
}

export interface RewriteResult {
  collection: string
  /** Documents rewritten. */
  updated: number
  /** Documents read. */
  read: number
}

/**
 * Rewrites the stored URLs of every collection the plugin serves (found by the adapter name it records
 * in `upload.adapter`). Pass the migration's `req` so the writes join its transaction.
 */
export async function rewriteStoredUrls({ payload, req }: { payload: Payload; req?: Partial<PayloadRequest> }): Promise<RewriteResult[]> {
  const results: RewriteResult[] = []
  for (const collection of payload.config.collections) {
    const adapter = typeof collection.upload === 'object' ? collection.upload.adapter : undefined
    if (adapter !== PLUGIN_SLUG && adapter !== `${PLUGIN_SLUG}-stream`) continue
    const stream = adapter === `${PLUGIN_SLUG}-stream`
    const result: RewriteResult = { collection: collection.slug, read: 0, updated: 0 }
    for (let page = 1; ; page++) {
      // The stored values as they are (no read hooks: those compute the new URLs).
      const found = await payload.db.find<Doc>({ collection: collection.slug, limit: 100, page, pagination: true, req, sort: 'id' })
      for (const doc of found.docs) {
        result.read++
        const data = rewrite(doc, stream)
        if (!data) continue
        await payload.update({
          collection: collection.slug,
          context: { [INTERNAL_UPDATE_CONTEXT]: true, [SKIP_UPLOAD_HOOKS]: true },
          data,
          depth: 0,
          id: doc.id,
          overrideAccess: true,
          req,
        })
        result.updated++
      }
      if (!found.hasNextPage) break
    }
    results.push(result)
  }
  return results
}

/**
 * The migration, for Payload's `migrate` (`payload migrate`, or `prodMigrations` of the database adapter):
 * add it to your migrations' `index.ts` (`export const migrations = [..., storageHostUrlsAtReadTime]`), or
 * call {@link rewriteStoredUrls} from the `up` of a migration made with `payload migrate:create`.
 */
export const storageHostUrlsAtReadTime = {
  name: '20261201_000000_storage_host_urls_at_read_time',
  // `unknown`, as Payload's `Migration` type declares: each database adapter passes its own arguments.
  up: async (args: unknown): Promise<void> => {
    const { payload, req } = args as { payload: Payload; req: PayloadRequest }
    const results = await rewriteStoredUrls({ payload, req })
    payload.logger.info({ msg: 'storage-host: stored URLs rewritten (now computed when read)', results })
  },
  // The old form was derived from the options; nothing to put back.
  down: async (_args: unknown): Promise<void> => undefined,
}
