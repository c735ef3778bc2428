/**
 * @module validation/validateTusRequest
 * The 400/413/415 rows of the tus-auth error table, checked on the request body before anything is
 * created upstream. Order: required fields, then each field's type and length (`TUS_FIELD_LIMITS`), field
 * validity (name, MIME, size, head), SVG/XML, size limit, accepted types, and last the content of `head`
 * against `filetype` (`contentSniff.ts`, shared with every other upload path).
 */
import { MAX_HEAD_CHARS } from '../constants.js'
import { HttpError } from '../errors.js'
import type { TusAuthRequest } from '../types.js'
import { assertContentMatches, sniffMarkup } from './contentSniff.js'
import { assertAcceptedType, EMPTY_FILE_MESSAGE, isSvgOrXml, MIME_ESSENCE_PATTERN, mimeEssence as essence } from './fileRules.js'

const REQUIRED = ['collection', 'filename', 'filesize', 'filetype'] as const
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * Longest accepted value of each string field, in characters (400 past it): a request costs at most
 * these, whatever a client sends. `head` has the spec's 8192; a title longer than a sentence or two is
 * not a title; ids and tokens are far shorter than their limit.
 */
export const TUS_FIELD_LIMITS = {
  collection: 100,
  filename: 255,
  filetype: 255,
  head: MAX_HEAD_CHARS,
  title: 500,
  videoId: 100,
  videoToken: 2048,
} as const

/** Largest accepted tus-auth body in bytes (413 past it): every field at its limit fits. */
export const TUS_AUTH_BODY_LIMIT = 16 * 1024

/** Checks field presence and types; answers the typed request. */
export function parseTusRequest(body: Record<string, unknown>): TusAuthRequest {
  const missing = REQUIRED.filter((k) => body[k] === undefined || body[k] === null || body[k] === '')
  if (missing.length) throw new HttpError(400, `Missing required fields: ${missing.join(', ')}.`)
  for (const [k, max] of Object.entries(TUS_FIELD_LIMITS)) {
    const value = body[k]
    if (value !== undefined && typeof value !== 'string') throw new HttpError(400, `Field "${k}" must be a string.`)
    // `head` has its own message (the spec's limit); the others are bounded here.
    if (k !== 'head' && typeof value === 'string' && value.length > max) throw new HttpError(400, `Field "${k}" must be at most ${max} characters.`)
  }
  if (typeof body.filesize !== 'number') throw new HttpError(400, 'Field "filesize" must be a number.')
  // Cast: every field was checked above; TypeScript cannot carry those checks over to a record.
  return body as unknown as TusAuthRequest
}

/** Decodes and checks `head`; answers its bytes (or undefined when absent). */
export function decodeHead(head: string | undefined): Buffer | undefined {
  if (head === undefined) return undefined
  if (head.length === 0 || head.length > MAX_HEAD_CHARS) throw new HttpError(400, `Field "head" must be 1 to ${MAX_HEAD_CHARS} base64 characters.`)
  if (head.length % 4 !== 0 || !BASE64.test(head)) throw new HttpError(400, 'Field "head" is not valid base64.')
  return Buffer.from(head, 'base64')
}

export interface TusFileChecks {
  /** `upload.limits.fileSize` of the CMS config, when set. */
  maxFileSize?: number
  /** Patterns accepted by the stream options. */
  streamMimeTypes: string[]
  /** The collection's own `upload.mimeTypes`, when set. */
  collectionMimeTypes?: string[]
  /**
   * The core's name sanitizer (payload/compat `sanitizeUploadFilename`), handed in so that validation/
   * stays below payload/ in the import graph (payload/fallbacks applies validation's file rules).
   */
  sanitizeFilename: (filename: string) => string
}

/** Validates name, type, size and head; throws the spec's status on the first failure. */
export async function validateTusFile(request: TusAuthRequest, checks: TusFileChecks): Promise<{ headBytes?: Buffer; sanitizedName: string }> {
  const { filename, filesize, filetype } = request
  let sanitizedName = ''
  try {
    sanitizedName = filename.trim() ? checks.sanitizeFilename(filename) : ''
  } catch {
    // payload's sanitizer throws on traversal attempts such as `../../`
  }
  if (!sanitizedName || sanitizedName.startsWith('.') || filename.length > 255) throw new HttpError(400, 'Invalid file name.')
  if (filetype !== filetype.trim() || !MIME_ESSENCE_PATTERN.test(essence(filetype))) throw new HttpError(400, 'Invalid MIME type.')
  if (filesize === 0) throw new HttpError(400, EMPTY_FILE_MESSAGE)
  if (!Number.isSafeInteger(filesize) || filesize < 0) throw new HttpError(400, 'Invalid file size.')
  const headBytes = decodeHead(request.head)

  const markup = headBytes && sniffMarkup(headBytes)
  if (isSvgOrXml(sanitizedName, filetype) || markup === 'svg' || markup === 'xml') {
    throw new HttpError(400, 'SVG and XML files cannot be uploaded to the streaming host.')
  }
  if (checks.maxFileSize !== undefined && filesize > checks.maxFileSize) {
    throw new HttpError(413, `The file exceeds the maximum size of ${checks.maxFileSize} bytes.`)
  }
  const mime = essence(filetype)
  assertAcceptedType(sanitizedName, mime, { collectionMimeTypes: checks.collectionMimeTypes, hostMimeTypes: checks.streamMimeTypes })
  if (headBytes) await assertContentMatches(mime, headBytes)
  return { headBytes, sanitizedName }
}
