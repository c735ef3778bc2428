/**
 * @module keys/objectKeys
 * Where a document's files are on the storage host. A document records its folder in `prefix` (and, on
 * Payload 3, a client upload's own folder segment in `_objectKey`); an object's key is that folder, or
 * the collection's `prefix` option when the document has none, then the file name. These are the rules
 * `@payloadcms/plugin-cloud-storage` 3.90 applies (without its composite prefixes), so documents it
 * stored keep resolving to the same keys.
 */
import { posix } from 'node:path'

import { sanitizeFilename } from 'payload/shared'

/**
 * A folder as it may appear in a key: decoded once (a `%2F` from a query becomes `/`), nothing still
 * percent-encoded after that (`%252f`), no control characters, `\` as `/`, no `.`/`..`/empty segments,
 * no leading slash. Anything else answers `''`.
 */
export function sanitizePrefix(prefix: string): string {
  let decoded: string
  try {
    decoded = decodeURIComponent(prefix)
  } catch {
    return ''
  }
  if (/%[0-9a-f]{2}/i.test(decoded)) return ''
  return (
    decoded
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x1f\x80-\x9f]/g, '')
      .replace(/\\/g, '/')
      .split('/')
      .filter((segment) => segment && segment !== '.' && segment !== '..')
      .join('/')
  )
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The folder a stored document's files are in: its `prefix`, then its `_objectKey` segment (either may be empty). */
export function documentFolder(doc: { prefix?: unknown; _objectKey?: unknown } | null | undefined): string {
  const prefix = sanitizePrefix(text(doc?.prefix))
  const objectKey = sanitizePrefix(text(doc?._objectKey))
  return prefix && objectKey ? `${prefix}/${objectKey}` : prefix || objectKey
}

/** The key of a stored file: the document's folder, else the collection's prefix, then the sanitized name. */
export function objectKey(collectionPrefix: string, folder: string | undefined, filename: string): string {
  return posix.join(sanitizePrefix(folder ?? '') || sanitizePrefix(collectionPrefix), sanitizeFilename(filename))
}

/** Whether `folder` is the collection's prefix or inside it (every folder is inside an empty prefix). */
export function isWithinPrefix(collectionPrefix: string, folder: string): boolean {
  const base = sanitizePrefix(collectionPrefix)
  return !base || folder === base || folder.startsWith(`${base}/`)
}

/**
 * The folder a new upload may be written to when a caller names one (`docPrefix`, a `prefix` sent with
 * the document): inside the collection's prefix, nested beneath it when given outside. A collection
 * without a prefix has no folders to choose: `undefined` (the caller refuses or ignores it).
 */
export function containedPrefix(collectionPrefix: string, requested: string): string | undefined {
  const base = sanitizePrefix(collectionPrefix)
  const folder = sanitizePrefix(requested)
  if (!base) return folder ? undefined : ''
  if (!folder) return base
  return isWithinPrefix(base, folder) ? folder : posix.join(base, folder)
}
