/**
 * @module payload/uploadReference
 * What a document request says about bytes the browser already sent to the host. A 3.x core verifies
 * its receipt and hands the adapter the verified `clientUploadContext`; a 4.x core hands over the
 * client's `uploadReference` as it came. Both end up here as one verified context, or a refusal.
 */
import { APIError, type PayloadRequest } from 'payload'

import { coreVerifiesReceipts, verifyUploadReceipt } from './compat.js'

export interface UploadContext {
  /** Verified: `{prefix, _objectKey?}` of a storage upload, `{videoId}` of a TUS upload. */
  context?: Record<string, unknown>
  /** An upload reference was sent and does not verify. */
  refused?: boolean
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Verifies a 4.x `uploadReference` (the plugin's receipt inside it) for this collection, user and name. */
export function verifyUploadReference(req: PayloadRequest, collectionSlug: string, filename: string, reference: unknown): Record<string, unknown> {
  if (!isObject(reference) || typeof reference.signedReceipt !== 'string') throw new APIError('A verified client upload reference is required.', 400)
  return verifyUploadReceipt({ collectionSlug, filename, req, signedReceipt: reference.signedReceipt })
}

/** The context of an adapter call (staticHandler params of either generation). */
export function uploadContextOf(
  req: PayloadRequest,
  params: { collection: string; filename: string; clientUploadContext?: unknown; uploadReference?: unknown },
): UploadContext {
  if (isObject(params.clientUploadContext)) return { context: params.clientUploadContext }
  if (params.uploadReference === undefined || coreVerifiesReceipts) return {}
  try {
    return { context: verifyUploadReference(req, params.collection, params.filename, params.uploadReference) }
  } catch {
    return { refused: true }
  }
}
