/**
 * @module payload/compat
 * The one module that knows Payload 3.x and the 4.x builds differ. Both expose their upload helpers in
 * `payload/internal` and `payload/shared`, but not the same ones: 3.90 has client-upload receipts and
 * `assertClientUpload*`; 4.x has `getUploadInstructions`, receipts of another shape, and passes an
 * `uploadReference` instead of a verified `clientUploadContext`.
 *
 * Members are read from namespace imports, so a missing one is `undefined` (feature detection) instead
 * of a link error that would stop the plugin from loading at all. Where the running core lacks a helper,
 * `fallbacks.ts` applies the same rules. No version numbers are compared anywhere.
 */
import { randomUUID } from 'node:crypto'

import { APIError, type CollectionConfig, type PayloadRequest, type TypeWithID, type Where } from 'payload'
import * as internal from 'payload/internal'
import * as shared from 'payload/shared'

import { containedPrefix, documentFolder, objectKey, sanitizePrefix } from '../keys/objectKeys.js'
import * as fallback from './fallbacks.js'

type Maybe<T> = { [K in keyof T]?: T[K] }
/** 4.x-only members are typed here by hand: the typings installed are 3.x's. */
const core = internal as Maybe<typeof internal> & { getUploadInstructions?: unknown }
const coreShared = shared as Maybe<typeof shared>

/**
 * The core serves `POST /api/upload-instructions` and reads an adapter's `uploadInstructions`
 * capability (the "current generation"). Otherwise (3.x) the plugin's own `storage/upload` endpoint and
 * the admin provider carry client uploads, and the core verifies its own receipts.
 */
export const coreHasUploadInstructions = typeof core.getUploadInstructions === 'function'

/**
 * The core's CLI takes schema-backed commands from `config.cli.commands` (4.x, where `cli` is a server-only
 * config key) instead of `config.bin` scripts (3.x, where `bin` is server-only and an unknown `cli` key, with
 * its handler functions, would be sent to the admin's client config and break the panel). Both arrived with
 * the current generation: no separate probe exists without importing `payload/cli`, which 3.x lacks.
 */
export const coreTakesCliCommands = coreHasUploadInstructions

/**
 * The core verifies client-upload receipts itself (3.x: `requiresClientUploadReceipt` on an adapter). A
 * core with upload instructions carries the upload's identity in `uploadReference`, which the plugin
 * signs and checks with its own receipt (4.x builds have receipt helpers of another shape).
 */
export const coreVerifiesReceipts =
  !coreHasUploadInstructions && typeof core.createClientUploadReceipt === 'function' && typeof core.verifyClientUploadReceipt === 'function'

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

export interface ServeKeyArgs {
  collection: CollectionConfig
  collectionPrefix: string
  /** The access-checked document, when the core has one: its folder (`prefix`, `_objectKey`) wins. */
  doc?: { _objectKey?: string; prefix?: string } & TypeWithID
  filename: string
  /** `?prefix=` of the file URL: only narrows which document is meant, never names a folder by itself. */
  prefixQueryParam?: string
  req: PayloadRequest
  /** The verified context of a client upload being read back (3.x: the core's; 4.x: the plugin's). */
  uploadContext?: Record<string, unknown>
}

/**
 * Object key a file request (or the core's read-back of a client upload) refers to: the access-checked
 * document's folder, else the verified upload's folder, else the folder of the document that holds this
 * file name (found with the reader's access, and `?prefix=` when names repeat across folders).
 */
export async function serveKey(args: ServeKeyArgs): Promise<string> {
  if (args.doc) return objectKey(args.collectionPrefix, documentFolder(args.doc), args.filename)
  const context = args.uploadContext
  if (context && typeof context.prefix === 'string') {
    const prefix = containedPrefix(args.collectionPrefix, context.prefix) ?? sanitizePrefix(context.prefix)
    return objectKey(args.collectionPrefix, documentFolder({ _objectKey: context._objectKey, prefix }), args.filename)
  }
  const sizes = (typeof args.collection.upload === 'object' ? args.collection.upload.imageSizes : undefined) ?? []
  const byName: Where = { or: [{ filename: { equals: args.filename } }, ...sizes.map((s) => ({ [`sizes.${s.name}.filename`]: { equals: args.filename } }))] }
  const where: Where = typeof args.prefixQueryParam === 'string' ? { and: [byName, { prefix: { equals: sanitizePrefix(args.prefixQueryParam) } }] } : byName
  const found = await args.req.payload.find({
    collection: args.collection.slug,
    depth: 0,
    draft: true,
    limit: 1,
    overrideAccess: false,
    pagination: false,
    req: args.req,
    select: { _objectKey: true, prefix: true },
    where,
  })
  return objectKey(args.collectionPrefix, documentFolder(found.docs[0] as { prefix?: unknown } | undefined), args.filename)
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
  // Unique in the collection, as the core's own client uploads are: the document's name is this one.
  const filename = await internal.getSafeFileName({
    collectionSlug: args.collectionSlug,
    desiredFilename: sanitizeUploadFilename(args.filename),
    req: args.req,
  })
  // A folder named by the caller stays inside the collection's prefix; a collection without one has no
  // folders to choose (its uploads go to a folder of their own): the name is ignored, so no caller signs a
  // PUT into another part of the zone (a backup folder the CDN blocks, another collection's files).
  const base = containedPrefix(args.collectionPrefix, args.docPrefix || args.collectionPrefix) ?? ''
  const uuid = randomUUID()
  if (coreVerifiesReceipts) {
    const context = { _objectKey: uuid, prefix: base }
    const signedReceipt = createUploadReceipt({ collectionSlug: args.collectionSlug, context, filename, req: args.req })
    return { context: { ...context, signedReceipt }, filename, key: objectKey(args.collectionPrefix, documentFolder(context), filename) }
  }
  const prefix = base ? `${base}/${uuid}` : uuid
  const signedReceipt = createUploadReceipt({ collectionSlug: args.collectionSlug, context: { prefix }, filename, req: args.req })
  return { context: { prefix, signedReceipt }, filename, key: objectKey(args.collectionPrefix, prefix, filename) }
}
