'use client'
/**
 * @module client/tusAuthClient
 * Browser side of tus-auth: reads the file's first bytes for `head` and calls the endpoint with the
 * session cookie.
 */
import { TUS_AUTH_PATH } from '../constants.js'
import type { TusAuthResponse } from '../types.js'

/** Bytes of the file sent as `head` (base64 of 4 KiB stays well under the 8192-character limit). */
const HEAD_BYTES = 4096

async function headOf(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer())
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary)
}

export interface TusAuthCall {
  apiUrl: string
  collectionSlug: string
  file: File
  resume?: { videoId: string; videoToken: string }
}

/** Calls tus-auth; throws an Error with the server's message on a non-200 answer. */
export async function requestTusAuth({ apiUrl, collectionSlug, file, resume }: TusAuthCall): Promise<TusAuthResponse> {
  const res = await fetch(`${apiUrl}${TUS_AUTH_PATH}`, {
    body: JSON.stringify({
      collection: collectionSlug,
      filename: file.name,
      filesize: file.size,
      filetype: file.type || 'application/octet-stream',
      head: await headOf(file),
      title: file.name.replace(/\.[^.]+$/, ''),
      ...resume,
    }),
    credentials: 'include',
    headers: { 'Content-Type': 'application/json' },
    method: 'POST',
  })
  const body = (await res.json().catch(() => ({}))) as TusAuthResponse & { errors?: Array<{ message: string }> }
  if (!res.ok) throw new Error(body.errors?.[0]?.message ?? `tus-auth answered HTTP ${res.status}`)
  return body
}
