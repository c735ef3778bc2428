/**
 * @module payload/compat
 * The one module that knows Payload 3.x and the 4.x builds differ. Both expose their upload helpers in
 * `payload/internal`, `payload/shared` and plugin-cloud-storage's `utilities`, but not the same ones:
 * 3.90 has client-upload receipts, `assertClientUpload*` and `getStorageFilePath`; 4.x has
 * `getUploadInstructions` and passes an `uploadReference` instead of a verified `clientUploadContext`.
 *
 * Members are read from namespace imports, so a missing one is `undefined` (feature detection) instead
 * of a link error that would stop the plugin from loading at all. Where the running core lacks a helper,
 * `fallbacks.ts` applies the same rules. No version numbers are compared anywhere.
 */
import { randomUUID } from 'node:crypto'

import * as cloudUtilities from '@payloadcms/plugin-cloud-storage/utilities'
import { APIError, type CollectionConfig, type PayloadRequest, type TypeWithID } from 'payload'
import * as internal from 'payload/internal'
import * as shared from 'payload/shared'

import * as fallback from './fallbacks.js'

type Maybe<T> = { [K in keyof T]?: T[K] }
/** 4.x-only members are typed here by hand: the typings installed are 3.x's. */
const core = internal as Maybe<typeof internal> & { getUploadInstructions?: unknown }
const coreShared = shared as Maybe<typeof shared>
/** 4.x's `getFilePrefix` takes the `uploadReference` of an upload-instructions request. */
type GetFilePrefix4 = (args: {
  collection: CollectionConfig
  filename: string
  prefixQueryParam?: string
  req: PayloadRequest
  uploadReference?: unknown
}) => Promise<string>
const utilities = cloudUtilities as Maybe<typeof cloudUtilities> & { getFilePrefix?: GetFilePrefix4 }

/**
 * The core serves `POST /api/upload-instructions` and reads an adapter's `uploadInstructions`
 * capability (the "current generation"). Otherwise (3.x) the plugin's own `storage/upload` endpoint and
 * the admin provider carry client uploads, and the core verifies its own receipts.
 */
export const coreHasUploadInstructions = typeof core.getUploadInstructions === 'function'

/** The core verifies client-upload receipts itself (3.x: `requiresClientUploadReceipt` on an adapter). */
export const coreVerifiesReceipts = typeof core.createClientUploadReceipt === 'function' && typeof core.verifyClientUploadReceipt === 'function'

export const UPLOAD_CONTENT_SECURITY_POLICY: string = core.UPLOAD_CONTENT_SECURITY_POLICY ?? fallback.UPLOAD_CONTENT_SECURITY_POLICY

/** Payload's name sanitizer for uploads (3.x keeps the extension apart; 4.x has the plain one). */
export function sanitizeUploadFilename(filename: string): string {
  return coreShared.getSanitizedUploadFilename ? coreShared.getSanitizedUploadFilename(filename) : shared.sanitizeFilename(filename)
}

/** Throws Forbidden unless the user may create or update documents of the collection. */
export async function assertClientUploadAccess(args: { collectionSlug: string; req: PayloadRequest }): Promise<void> {
  if (core.assertClientUploadAccess) return core.assertClientUploadAccess(args)
  return fallback.assertClientUploadAccess(args)
}

/** Throws a 400 for an invalid name or MIME type, and for SVG/XML (which need the server's checks). */
export function assertClientUploadAllowed(args: { collection: CollectionConfig; filename: string; mimeType: string }): void {
  if (core.assertClientUploadAllowed) return core.assertClientUploadAllowed(args)
  return fallback.assertClientUploadAllowed(args)
}

export function assertClientUploadFileSize(filesize: unknown): void {
  if (core.assertClientUploadFileSize) return core.assertClientUploadFileSize(filesize as number)
  return fallback.assertClientUploadFileSize(filesize)
}

export interface ReceiptInput {
  collectionSlug: string
  /** Where the bytes are (`prefix`, `_objectKey`) or which video they became (`videoId`). */
  context: Record<string, unknown>
  filename: string
  req: PayloadRequest
}

/** Signs what the browser uploaded; bound to the user, the collection and the file name, 6 h. */
export function createUploadReceipt(input: ReceiptInput): string {
  if (coreVerifiesReceipts) return core.createClientUploadReceipt!(input)
  return fallback.createUploadReceipt(input)
}

/**
 * Verifies a receipt for this collection and user; answers its context. A 400 APIError (the core's
 * message) for a forged, foreign or expired one.
 */
export function verifyUploadReceipt(args: { collectionSlug: string; req: PayloadRequest; signedReceipt: string; filename: string }): Record<string, unknown> {
  const receipt = coreVerifiesReceipts ? core.verifyClientUploadReceipt!(args) : fallback.verifyUploadReceipt(args)
  if (receipt.filename !== args.filename) throw new APIError('Client upload reference does not match this request.', 400)
  return receipt.context as Record<string, unknown>
}

/** Object key of a file being written (`handleUpload`): 3.x hands it over; 4.x leaves it to the adapter. */
export function uploadKey(args: { storageFilePath?: string; collectionPrefix: string; docPrefix?: string; filename: string }): string {
  if (args.storageFilePath) return args.storageFilePath
  return objectKey(args.collectionPrefix, args.docPrefix, args.filename)
}

/**
 * Object key of a stored file (`handleDelete`): 3.x hands it over (`_objectKey` included); 4.x documents
 * keep their whole folder in `prefix`, else the collection's prefix applies.
 */
export function storedKey(args: { storageFilePath?: string; collectionPrefix: string; doc: { prefix?: unknown }; filename: string }): string {
  if (args.storageFilePath) return args.storageFilePath
  return objectKey(args.collectionPrefix, typeof args.doc.prefix === 'string' ? args.doc.prefix : undefined, args.filename)
}

/** `docPrefix || collectionPrefix` + file name, sanitized the way plugin-cloud-storage does. */
export function objectKey(collectionPrefix: string, docPrefix: string | undefined, filename: string): string {
  return utilities.getFileKey!({ collectionPrefix, docPrefix, filename }).fileKey
}

export interface ServeKeyArgs {
  collection: CollectionConfig
  collectionPrefix: string
  /** The access-checked document, when the core has one: its folder (`prefix`, `_objectKey`) wins. */
  doc?: { _objectKey?: string; prefix?: string } & TypeWithID
  filename: string
  prefixQueryParam?: string
  req: PayloadRequest
  /** 3.x: the verified receipt context; 4.x: the context of an already verified `uploadReference`. */
  uploadContext?: Record<string, unknown>
}

/** Object key a file request (or the core's read-back of a client upload) refers to. */
export async function serveKey(args: ServeKeyArgs): Promise<string> {
  if (utilities.getStorageFilePath) {
    return utilities.getStorageFilePath({ ...args, clientUploadContext: args.uploadContext })
  }
  const prefix = await utilities.getFilePrefix!({ ...args, uploadReference: args.uploadContext })
  return objectKey(args.collectionPrefix, prefix, args.filename)
}

/**
 * Client-upload keys: every client upload gets its own folder `{prefix}/{uuid}/`, so a name never
 * collides and an upload that never became a document is one folder to sweep. 3.x keeps the uuid in
 * the document's `_objectKey` and signs the core's receipt; 4.x (no `_objectKey`) keeps the folder in
 * the document's `prefix`, and the receipt is this plugin's, checked by its `beforeOperation` hook.
 */
export async function resolveClientUploadKey(args: {
  collectionPrefix: string
  collectionSlug: string
  docPrefix?: string
  filename: string
  req: PayloadRequest
}): Promise<{
  key: string
  filename: string
  context: Record<string, unknown>
}> {
  if (coreVerifiesReceipts) {
    const resolved = await utilities.resolveSignedURLKey!(args)
    return { context: resolved.clientUploadContext as Record<string, unknown>, filename: resolved.sanitizedFilename, key: resolved.storageFilePath }
  }
  // Unique in the collection too, as the core's own client uploads do: the document's name is this one.
  const filename = await internal.getSafeFileName({
    collectionSlug: args.collectionSlug,
    desiredFilename: sanitizeUploadFilename(args.filename),
    req: args.req,
  })
  const base = cloudUtilities.sanitizePrefix(args.docPrefix || args.collectionPrefix)
  const prefix = base ? `${base}/${randomUUID()}` : randomUUID()
  const signedReceipt = createUploadReceipt({ collectionSlug: args.collectionSlug, context: { prefix }, filename, req: args.req })
  return { context: { prefix, signedReceipt }, filename, key: objectKey(args.collectionPrefix, prefix, filename) }
}
