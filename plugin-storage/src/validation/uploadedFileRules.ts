/**
 * @module validation/uploadedFileRules
 * The file rules for a file that reaches a document save: sent through the CMS (the admin's form
 * upload, which Payload's admin uses for SVG and XML instead of a client upload, and any multipart REST
 * call) or read back from the host after a client upload. Same rules as tus-auth and the client-upload
 * signing (`fileRules.ts`, `contentSniff.ts`), so a file refused on one path is refused on all of them:
 * - an empty file: 400 "The file is empty." (whatever `allowRestrictedFileTypes` says);
 * - SVG or XML by name, type or content: 400;
 * - a restricted extension (NFKC-normalised) or type: 415;
 * - content that contradicts the declared type (HTML, another format, an "image" that is no image): 415.
 * Payload itself checks the collection's `mimeTypes` on this path. A collection with Payload's
 * `allowRestrictedFileTypes` skips these rules (as the core's own client-upload checks do).
 */
import { open, stat } from 'node:fs/promises'

import { APIError, type PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'
import { assertContentMatches, SNIFF_BYTES } from './contentSniff.js'
import { assertAcceptedType, EMPTY_FILE_MESSAGE, isSvgOrXml } from './fileRules.js'

type UploadedFile = NonNullable<PayloadRequest['file']>

/** The first bytes of the file: from memory, else from Payload's temp file (large or read-back files). */
async function firstBytes(file: UploadedFile): Promise<Uint8Array> {
  if (file.data && file.data.byteLength > 0) return file.data.subarray(0, SNIFF_BYTES)
  if (!file.tempFilePath) return new Uint8Array(0)
  const handle = await open(file.tempFilePath, 'r')
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

/**
 * Whether the file has no bytes. A video's receipt is exempt: its bytes went to the streaming host (tus-auth
 * refuses an empty one), and a 4.x core reads it back as an empty body.
 */
async function isEmpty(file: UploadedFile): Promise<boolean> {
  const context = (file as { clientUploadContext?: { videoId?: unknown } }).clientUploadContext
  if (typeof context?.videoId === 'string') return false
  if (file.data && file.data.byteLength > 0) return false
  if (file.tempFilePath) return (await stat(file.tempFilePath).catch(() => undefined))?.size === 0
  return true
}

/** Payload's own error type, so the operation answers the status and message in its error body. */
const asApiError = (err: unknown): unknown => (err instanceof HttpError ? new APIError(err.message, err.status, undefined, true) : err)

/** Throws a public APIError (400 or 415) when the file breaks a rule (module comment); `allowRestrictedFileTypes` skips them. */
export async function assertUploadedFile(file: UploadedFile, collection: { upload?: unknown }): Promise<void> {
  // Before the type rules, whose answer for no bytes ("text/plain (from extension png)") misleads.
  if (await isEmpty(file)) throw asApiError(new HttpError(400, EMPTY_FILE_MESSAGE))
  const allowRestricted =
    typeof collection.upload === 'object' && (collection.upload as { allowRestrictedFileTypes?: boolean }).allowRestrictedFileTypes === true
  // The collection opted into restricted types (Payload's own switch): the app takes the risk knowingly.
  if (allowRestricted) return
  const mimeType = typeof file.mimetype === 'string' ? file.mimetype : ''
  try {
    if (isSvgOrXml(file.name, mimeType)) throw new HttpError(400, `SVG and XML files cannot be uploaded ("${file.name}").`)
    assertAcceptedType(file.name, mimeType, {})
    await assertContentMatches(mimeType, await firstBytes(file))
  } catch (err) {
    throw asApiError(err)
  }
}
