/**
 * @module payload/fallbacks
 * What `payload/compat` uses when the running core lacks a helper (the 4.x builds): the same rules as
 * Payload 3.90's own client-upload checks, and a receipt in the same format as the core's but signed
 * under this plugin's own domain, because a 4.x core never checks one: the plugin's `beforeOperation`
 * hook does (`hooks/verifyUploadReference.ts`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

import { APIError, type CollectionConfig, executeAccess, Forbidden, type PayloadRequest } from 'payload'
import { sanitizeFilename } from 'payload/shared'

import { RECEIPT_LIFETIME_MS } from '../constants.js'
import { isSvgOrXml, MIME_ESSENCE_PATTERN } from '../validation/fileRules.js'

export const UPLOAD_CONTENT_SECURITY_POLICY = "script-src 'none'; frame-src 'none'; object-src 'none'"

export async function assertClientUploadAccess({ collectionSlug, req }: { collectionSlug: string; req: PayloadRequest }): Promise<void> {
  const collection = req.payload.collections[collectionSlug]?.config
  if (!req.user || !collection) throw new Forbidden(req.t)
  if (await executeAccess({ disableErrors: true, req }, collection.access.create)) return
  if (!(await executeAccess({ disableErrors: true, req }, collection.access.update))) throw new Forbidden(req.t)
}

export function assertClientUploadFileSize(filesize: unknown): void {
  if (typeof filesize !== 'number' || !Number.isSafeInteger(filesize) || filesize < 0) {
    throw new APIError('A valid file size is required for client uploads.', 400)
  }
}

export function assertClientUploadAllowed({ collection, filename, mimeType }: { collection: CollectionConfig; filename: string; mimeType: string }): void {
  let sanitized = ''
  try {
    sanitized = typeof filename === 'string' && filename.trim() ? sanitizeFilename(filename) : ''
  } catch {
    // the sanitizer throws on traversal attempts
  }
  if (!sanitized) throw new APIError('A valid filename is required for client uploads.', 400)
  const allowRestricted = typeof collection.upload === 'object' && collection.upload.allowRestrictedFileTypes === true
  if (typeof mimeType !== 'string' || mimeType !== mimeType.trim() || !MIME_ESSENCE_PATTERN.test(mimeType.split(';', 1)[0] ?? '')) {
    throw new APIError('A valid MIME type is required for client uploads.', 400)
  }
  if (!allowRestricted && isSvgOrXml(sanitized, mimeType)) {
    throw new APIError('SVG and XML files must be uploaded through Payload.', 400)
  }
}

const RECEIPT_DOMAIN = 'hosted-media-upload-receipt-v1'

interface Receipt {
  collectionSlug: string
  context: Record<string, unknown>
  expiresAt: number
  filename: string
  userCollection: string | null
  userID: number | string | null
}

const userOf = (req: PayloadRequest) => ({ userCollection: req.user?.collection ?? null, userID: (req.user?.id as number | string | undefined) ?? null })
const sign = (encoded: string, secret: string) => createHmac('sha256', `${RECEIPT_DOMAIN}:${secret}`).update(encoded).digest('base64url')

export function createUploadReceipt({
  collectionSlug,
  context,
  filename,
  req,
}: {
  collectionSlug: string
  context: Record<string, unknown>
  filename: string
  req: PayloadRequest
}): string {
  const receipt: Receipt = { collectionSlug, context, expiresAt: Date.now() + RECEIPT_LIFETIME_MS, filename, ...userOf(req) }
  const encoded = Buffer.from(JSON.stringify(receipt)).toString('base64url')
  return `${encoded}.${sign(encoded, req.payload.secret)}`
}

const invalid = (): never => {
  throw new APIError('Invalid or expired client upload reference.', 400)
}

export function verifyUploadReceipt({ collectionSlug, req, signedReceipt }: { collectionSlug: string; req: PayloadRequest; signedReceipt: string }): Receipt {
  const [encoded, signature, extra] = typeof signedReceipt === 'string' ? signedReceipt.split('.') : []
  if (!encoded || !signature || extra !== undefined) return invalid()
  const expected = Buffer.from(sign(encoded, req.payload.secret))
  const actual = Buffer.from(signature)
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return invalid()
  let receipt: Receipt
  try {
    receipt = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Receipt
  } catch {
    return invalid()
  }
  const user = userOf(req)
  if (
    !receipt ||
    typeof receipt.context !== 'object' ||
    receipt.context === null ||
    receipt.collectionSlug !== collectionSlug ||
    !(receipt.expiresAt > Date.now()) ||
    receipt.userCollection !== user.userCollection ||
    receipt.userID !== user.userID
  ) {
    return invalid()
  }
  return receipt
}
