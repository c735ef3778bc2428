'use client'
/**
 * @module client/StorageClientUploadHandler
 * Client-upload handler of storage collections (built like plugin-cloud-storage's 3.x
 * `createClientUploadHandler`): asks the CMS for a presigned PUT, sends the bytes to the storage host
 * directly, and hands the receipt back to the form.
 */
import { createClientUploadHandler } from './createClientUploadHandler.js'

import { STORAGE_UPLOAD_PATH } from '../constants.js'

export const StorageClientUploadHandler = createClientUploadHandler({
  handler: async ({ apiRoute, collectionSlug, docPrefix, file, serverURL, updateFilename }) => {
    const res = await fetch(`${serverURL ?? ''}${apiRoute}${STORAGE_UPLOAD_PATH}`, {
      body: JSON.stringify({ collectionSlug, docPrefix, filename: file.name, mimeType: file.type, size: file.size }),
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
      method: 'POST',
    })
    const signed = (await res.json()) as {
      clientUploadContext?: unknown
      errors?: Array<{ message: string }>
      filename?: string
      headers?: Record<string, string>
      url?: string
    }
    if (!res.ok || !signed.url) throw new Error(signed.errors?.[0]?.message ?? `Could not get an upload URL (HTTP ${res.status})`)
    const put = await fetch(signed.url, { body: file, headers: signed.headers, method: 'PUT' })
    if (!put.ok) throw new Error(`The storage host refused the upload (HTTP ${put.status})`)
    if (signed.filename) updateFilename(signed.filename)
    return signed.clientUploadContext
  },
})
