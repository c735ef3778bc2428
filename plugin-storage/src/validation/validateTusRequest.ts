/**
 * @module validation/validateTusRequest
 * The 400/413/415 rows of the tus-auth error table, checked on the request body before anything is
 * created upstream. Order: required fields, then field validity (name, MIME, size, head), SVG/XML,
 * size limit, accepted types, and last the magic-byte sniff of `head` against `filetype`.
 */
import { fileTypeFromBuffer } from 'file-type'

import { MAX_HEAD_CHARS } from '../constants.js'
import { HttpError } from '../endpoints/httpError.js'
import { sanitizeUploadFilename } from '../payload/compat.js'
import { assertAcceptedType, isSvgOrXml, MIME_ESSENCE_PATTERN, mimeEssence as essence } from './fileRules.js'
import type { TusAuthRequest } from '../types.js'

const REQUIRED = ['collection', 'filename', 'filesize', 'filetype'] as const
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
/** Container names that file-type and browsers spell differently for the same bytes. */
const SAME_CONTAINER: Record<string, string> = { 'video/x-m4v': 'video/mp4', 'audio/mp4': 'video/mp4', 'video/x-matroska': 'video/webm' }

/** Checks field presence and types; answers the typed request. */
export function parseTusRequest(body: Record<string, unknown>): TusAuthRequest {
  const missing = REQUIRED.filter((k) => body[k] === undefined || body[k] === null || body[k] === '')
  if (missing.length) throw new HttpError(400, `Missing required fields: ${missing.join(', ')}.`)
  for (const k of ['collection', 'filename', 'filetype', 'head', 'title', 'videoId', 'videoToken'] as const) {
    if (body[k] !== undefined && typeof body[k] !== 'string') throw new HttpError(400, `Field "${k}" must be a string.`)
  }
  if (typeof body.filesize !== 'number') throw new HttpError(400, 'Field "filesize" must be a number.')
  return body as unknown as TusAuthRequest
}

/** Decodes and checks `head`; answers its bytes (or undefined when absent). */
export function decodeHead(head: string | undefined): Buffer | undefined {
  if (head === undefined) return undefined
  if (head.length === 0 || head.length > MAX_HEAD_CHARS) throw new HttpError(400, `Field "head" must be 1 to ${MAX_HEAD_CHARS} base64 characters.`)
  if (head.length % 4 !== 0 || !BASE64.test(head)) throw new HttpError(400, 'Field "head" is not valid base64.')
  return Buffer.from(head, 'base64')
}

/** Looks like the start of an XML or SVG document (possibly after a BOM and whitespace). */
function looksLikeXml(bytes: Buffer): boolean {
  const text = bytes
    .subarray(0, 256)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase()
  return text.startsWith('<?xml') || text.startsWith('<svg') || text.startsWith('<!doctype svg')
}

export interface TusFileChecks {
  /** `upload.limits.fileSize` of the CMS config, when set. */
  maxFileSize?: number
  /** Patterns accepted by the stream options. */
  streamMimeTypes: string[]
  /** The collection's own `upload.mimeTypes`, when set. */
  collectionMimeTypes?: string[]
}

/** Validates name, type, size and head; throws the spec's status on the first failure. */
export async function validateTusFile(request: TusAuthRequest, checks: TusFileChecks): Promise<{ headBytes?: Buffer; sanitizedName: string }> {
  const { filename, filesize, filetype } = request
  let sanitizedName = ''
  try {
    sanitizedName = filename.trim() ? sanitizeUploadFilename(filename) : ''
  } catch {
    // payload's sanitizer throws on traversal attempts such as `../../`
  }
  if (!sanitizedName || sanitizedName.startsWith('.') || filename.length > 255) throw new HttpError(400, 'Invalid file name.')
  if (filetype !== filetype.trim() || !MIME_ESSENCE_PATTERN.test(essence(filetype))) throw new HttpError(400, 'Invalid MIME type.')
  if (!Number.isSafeInteger(filesize) || filesize <= 0) throw new HttpError(400, 'Invalid file size.')
  const headBytes = decodeHead(request.head)

  if (isSvgOrXml(sanitizedName, filetype) || (headBytes && looksLikeXml(headBytes))) {
    throw new HttpError(400, 'SVG and XML files cannot be uploaded to the streaming host.')
  }
  if (checks.maxFileSize !== undefined && filesize > checks.maxFileSize) {
    throw new HttpError(413, `The file exceeds the maximum size of ${checks.maxFileSize} bytes.`)
  }
  const mime = essence(filetype)
  assertAcceptedType(sanitizedName, mime, { collectionMimeTypes: checks.collectionMimeTypes, hostMimeTypes: checks.streamMimeTypes })
  if (headBytes) {
    const detected = await fileTypeFromBuffer(headBytes)
    if (detected) {
      const a = SAME_CONTAINER[detected.mime] ?? detected.mime
      const b = SAME_CONTAINER[mime] ?? mime
      // QuickTime and MP4 share the ISO base media layout; a .mov declared as mp4 (or back) is fine.
      const isoFamily = new Set(['video/mp4', 'video/quicktime'])
      if (a !== b && !(isoFamily.has(a) && isoFamily.has(b))) {
        throw new HttpError(415, `The file content (${detected.mime}) does not match the declared type ${mime}.`)
      }
    }
  }
  return { headBytes, sanitizedName }
}
