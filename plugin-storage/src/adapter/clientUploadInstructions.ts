/**
 * @module adapter/clientUploadInstructions
 * Signing one browser-direct upload to the storage host, shared by both generations: the plugin's own
 * `POST /api/storage-host/storage/upload` (3.x) and the adapter's `uploadInstructions.generate`, which a
 * 4.x core calls from `POST /api/upload-instructions`. Access is the CMS check (create or update on the
 * collection) narrowed by `clientUploads.access`; the URL is a SigV4 presigned PUT bound to one key, type
 * and size; the receipt says where the bytes went.
 */
import { Forbidden, type PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'
import type { ResolvedCollection, ResolvedStorage } from '../options/resolveOptions.js'
import {
  assertClientUploadAccess,
  assertClientUploadAllowed,
  assertClientUploadFileSize,
  resolveClientUploadKey,
  sanitizeUploadFilename,
} from '../payload/compat.js'
import { presignPut, type PresignedPut } from '../upstream/presignPut.js'
import { assertAcceptedType, EMPTY_FILE_MESSAGE, isSvgOrXml } from '../validation/fileRules.js'
import type { UploadInstructionsCapability } from '../wiring/hostAdapter.js'

export interface ClientUploadRequest {
  collectionSlug: string
  filename: string
  mimeType: string
  size: number
  docPrefix?: string
}

export interface SignedClientUpload extends PresignedPut {
  /** The unique, sanitized name the document must be created with. */
  filename: string
  /** `{prefix, signedReceipt}` (+ `_objectKey` on 3.x): sent back as `clientUploadContext` / `uploadReference`. */
  context: Record<string, unknown>
}

/** True when the CMS check passes and `clientUploads.access` (if any) agrees: it can only narrow. */
export async function mayUploadDirectly(storage: ResolvedStorage, req: PayloadRequest, collectionSlug: string): Promise<boolean> {
  const allowed = await assertClientUploadAccess({ collectionSlug, req }).then(
    () => true,
    () => false,
  )
  return allowed && (!storage.clientUploads?.access || (await storage.clientUploads.access({ collectionSlug, req })))
}

/**
 * Validates the file and signs the PUT. Throws Payload's 400 errors for a bad name, type or size, and
 * tus-auth's 415 for a restricted file or a type outside the collection's `mimeTypes` (the bytes go
 * straight to the host, where no CMS check ever sees them); the caller has checked access and the size
 * limit (their statuses differ between the two endpoints). The signed PUT carries the checked type as a
 * signed header: the host refuses the bytes under any other `Content-Type`.
 */
export async function signClientUpload(
  storage: ResolvedStorage,
  target: ResolvedCollection,
  req: PayloadRequest,
  upload: ClientUploadRequest,
): Promise<SignedClientUpload> {
  const collection = req.payload.collections[upload.collectionSlug]!.config
  // Before anything is signed: an empty file would only be refused after the browser put it on the host.
  if (upload.size === 0) throw new HttpError(400, EMPTY_FILE_MESSAGE)
  assertClientUploadAllowed({ collection, filename: upload.filename, mimeType: upload.mimeType })
  assertClientUploadFileSize(upload.size)
  // A collection may allow a missing type (`allowRestrictedFileTypes`); the host then needs one to bind.
  if (typeof upload.mimeType !== 'string' || !upload.mimeType) throw new HttpError(400, 'A valid MIME type is required for client uploads.')
  const uploadConfig = typeof collection.upload === 'object' ? collection.upload : undefined
  // The core's SVG/XML check reads the name as written; `logo.ｓｖｇ` is an SVG too (NFKC, fileRules.ts).
  if (uploadConfig?.allowRestrictedFileTypes !== true && isSvgOrXml(upload.filename, upload.mimeType)) {
    throw new HttpError(400, 'SVG and XML files must be uploaded through Payload.')
  }
  const mimeTypes = uploadConfig?.mimeTypes
  assertAcceptedType(sanitizeUploadFilename(upload.filename), upload.mimeType, { collectionMimeTypes: mimeTypes })
  const resolved = await resolveClientUploadKey({
    collectionPrefix: target.prefix,
    collectionSlug: upload.collectionSlug,
    docPrefix: upload.docPrefix,
    filename: upload.filename,
    req,
  })
  const presigned = await presignPut(storage, resolved.key, upload.mimeType, upload.size, storage.clientUploads?.expiresIn ?? 600)
  return { ...presigned, context: resolved.context, filename: resolved.filename }
}

/** The 4.x capability: `{type: 'http', file, request}` for the core's `POST /api/upload-instructions`. */
export function uploadInstructionsFor(storage: ResolvedStorage, target: ResolvedCollection): UploadInstructionsCapability {
  return {
    generate: async (args) => {
      const { req } = args
      // A core with upload instructions leaves access to the generator.
      if (!args.overrideAccess && !(await mayUploadDirectly(storage, req, args.collectionSlug))) throw new Forbidden(req.t)
      const signed = await signClientUpload(storage, target, req, { ...args, size: args.filesize })
      return {
        type: 'http' as const,
        file: { filename: signed.filename, mimeType: args.mimeType, size: args.filesize, uploadReference: signed.context },
        request: { headers: signed.headers, method: 'PUT' as const, url: signed.url },
      }
    },
    useInAdmin: true,
  }
}
