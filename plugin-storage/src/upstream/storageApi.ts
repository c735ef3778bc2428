/**
 * @module upstream/storageApi
 * The storage host's HTTP API: `PUT|GET|DELETE {endpoint}/{zone}/{path}` with the `AccessKey` header,
 * listing with `GET {endpoint}/{zone}/{dir}/`.
 */
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'

import { UpstreamError } from '../errors.js'
import { upstreamFetch } from './upstreamFetch.js'

export interface StorageApiConfig {
  endpoint: string
  zoneName: string
  accessKey: string
}

/** One entry of a directory listing. */
export interface StorageListEntry {
  ObjectName: string
  Length: number
  IsDirectory: boolean
  LastChanged: string
  /** Uppercase hex SHA-256 of the object (null for a folder, or where the host has none). */
  Checksum?: string | null
}

/** Encodes each path segment; the key never escapes the zone (no `..`, no empty segments). */
export function objectUrl(config: StorageApiConfig, key: string): string {
  const segments = key.split('/').filter((s) => s.length > 0)
  if (segments.some((s) => s === '.' || s === '..')) throw new Error('Invalid storage key')
  return `${config.endpoint}/${encodeURIComponent(config.zoneName)}/${segments.map(encodeURIComponent).join('/')}`
}

/** What to upload: a file on disk (streamed) or bytes in memory. */
export type UploadBody = { path: string; size: number } | { buffer: Buffer | Uint8Array | ArrayBuffer }

/**
 * Uploads one object. Files on disk are streamed, never read whole into memory. With `checksum` (uppercase
 * hex SHA-256) the host refuses bytes that do not match it, and stores nothing.
 */
export async function putObject(config: StorageApiConfig, key: string, body: UploadBody, contentType: string, checksum?: string): Promise<void> {
  const headers: Record<string, string> = { AccessKey: config.accessKey, 'Content-Type': contentType }
  if (checksum) headers.Checksum = checksum
  let requestBody: BodyInit
  if ('path' in body) {
    headers['Content-Length'] = String(body.size)
    // Cast: Node's web ReadableStream and the DOM lib's are the same at run time but distinct types.
    requestBody = Readable.toWeb(createReadStream(body.path)) as unknown as BodyInit
  } else {
    // fetch sets Content-Length from a byte body itself; a second one from us makes some undici
    // dispatchers (a process may install a newer one globally) refuse the request.
    // Cast: a Buffer is a Uint8Array, but @types/node's generic ArrayBufferLike does not fit BodyInit.
    requestBody = (Buffer.isBuffer(body.buffer) ? body.buffer : Buffer.from(body.buffer as ArrayBuffer)) as unknown as BodyInit
  }
  const res = await upstreamFetch(`Upload of "${key}"`, objectUrl(config, key), {
    method: 'PUT',
    headers,
    body: requestBody,
    duplex: 'half',
  } as RequestInit)
  await res.body?.cancel()
  if (!res.ok) throw new UpstreamError(`Upload of "${key}"`, res.status)
}

/**
 * Opens an object; forwards `Range`. Answers the upstream response (200/206) or throws. `signal` aborts
 * the request (callers that must answer quickly bound the wait for the host's headers with it).
 */
export async function getObject(config: StorageApiConfig, key: string, range?: string | null, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { AccessKey: config.accessKey }
  if (range) headers.Range = range
  const res = await upstreamFetch(`Download of "${key}"`, objectUrl(config, key), { headers, signal })
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(`Download of "${key}"`, res.status)
  }
  return res
}

/** Deletes an object; an object already gone counts as deleted (idempotent). */
export async function deleteObject(config: StorageApiConfig, key: string): Promise<void> {
  const res = await upstreamFetch(`Delete of "${key}"`, objectUrl(config, key), { method: 'DELETE', headers: { AccessKey: config.accessKey } })
  await res.body?.cancel()
  if (!res.ok && res.status !== 404) throw new UpstreamError(`Delete of "${key}"`, res.status)
}

/** Lists a directory (empty list when it does not exist). */
export async function listDirectory(config: StorageApiConfig, dir: string): Promise<StorageListEntry[]> {
  const base = dir ? `${objectUrl(config, dir)}/` : `${config.endpoint}/${encodeURIComponent(config.zoneName)}/`
  const res = await upstreamFetch(`Listing of "${dir || '/'}"`, base, { headers: { AccessKey: config.accessKey, Accept: 'application/json' } })
  if (res.status === 404) return []
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(`Listing of "${dir || '/'}"`, res.status)
  }
  return (await res.json()) as StorageListEntry[]
}
