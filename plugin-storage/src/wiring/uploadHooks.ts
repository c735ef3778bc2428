/**
 * @module wiring/uploadHooks
 * The collection hooks that put a save's files on the host and take them off again:
 * - `beforeChange`: keeps the request's file and generated sizes in `req.context` (a nested save clears
 *   `req.file`), and settles the document's folder: a verified client upload keeps the folder it was
 *   signed for; any other folder a caller sends is kept inside the collection's prefix (a collection
 *   without one has no folders);
 * - `afterChange`: writes the original and every size (client uploads are on the host already), merges
 *   what the adapter answers into the document, then deletes the files the save replaced;
 * - `afterDelete`: deletes the document's files (a failure is logged: the document is gone either way);
 * - `afterError`: a storage client upload whose file was refused (the plugin's file rules, or the core's
 *   checks on `file`) is removed from the host: it can never become a document, and left there it would
 *   go into every backup until the orphan sweep. Never an object a document holds.
 */
import type {
  CollectionAfterChangeHook,
  CollectionAfterDeleteHook,
  CollectionAfterErrorHook,
  CollectionBeforeChangeHook,
  CollectionConfig,
  PayloadRequest,
} from 'payload'

import type { HostAdapter, IncomingFile } from './hostAdapter.js'
import { containedPrefix, documentFolder, objectKey } from '../keys/objectKeys.js'

/** `req.context` key: the plugin's own document updates (metadata after an upload, undo) skip these hooks. */
export const SKIP_UPLOAD_HOOKS = 'skipCloudStorage'
/** `req.context` key: the file of the request, kept for nested saves. */
export const INCOMING_FILE_CONTEXT = 'storageHostIncomingFile'

/** `req.context` key: the plugin's file rules refused the request's file (`hooks/verifyUploadReference.ts`). */
export const REFUSED_FILE_CONTEXT = 'storageHostRefusedFile'

type UploadedFile = NonNullable<PayloadRequest['file']> & { clientUploadContext?: unknown }
type Doc = Record<string, unknown> & {
  id?: number | string
  filename?: unknown
  mimeType?: unknown
  prefix?: unknown
  _objectKey?: unknown
  _status?: unknown
  sizes?: Record<string, { filename?: unknown; mimeType?: unknown } | null | undefined> | null
}

interface KeptFile {
  file: UploadedFile
  sizes?: Record<string, Buffer>
}

/** The file and generated sizes of this request, also after a nested save cleared `req.file`. */
export function requestFile(req: PayloadRequest): KeptFile | undefined {
  const kept = req.context?.[INCOMING_FILE_CONTEXT] as KeptFile | undefined
  const file = (req.file as UploadedFile | undefined) ?? kept?.file
  if (!file) return undefined
  return { file, sizes: (req.payloadUploadSizes as Record<string, Buffer> | undefined) ?? kept?.sizes }
}

/** The files of a save, named as the document names them. */
function incomingFiles(doc: Doc, req: PayloadRequest): IncomingFile[] {
  const incoming = requestFile(req)
  if (!incoming || typeof doc.filename !== 'string' || typeof doc.mimeType !== 'string') return []
  const { file, sizes } = incoming
  const files: IncomingFile[] = [
    {
      buffer: file.data,
      clientUploadContext: file.clientUploadContext,
      filename: doc.filename,
      filesize: file.size,
      mimeType: doc.mimeType,
      tempFilePath: file.tempFilePath,
    },
  ]
  for (const [name, size] of Object.entries(doc.sizes ?? {})) {
    const bytes = sizes?.[name]
    if (bytes && size && typeof size.filename === 'string' && typeof size.mimeType === 'string') {
      files.push({ buffer: bytes, filename: size.filename, filesize: bytes.length, mimeType: size.mimeType })
    }
  }
  return files
}

/** Every file name a document holds: the original and each size. */
function fileNames(doc: Doc | undefined): string[] {
  if (!doc) return []
  const names = [doc.filename, ...Object.values(doc.sizes ?? {}).map((size) => size?.filename)]
  return names.filter((name): name is string => typeof name === 'string' && name.length > 0)
}

const verifiedContext = (file: UploadedFile | undefined): Record<string, unknown> | undefined =>
  file && typeof file.clientUploadContext === 'object' && file.clientUploadContext !== null ? (file.clientUploadContext as Record<string, unknown>) : undefined

/** Whether a failed save failed on its file: the plugin's rules, or the core's (a `ValidationError` on `file`). */
function refusedTheFile(error: unknown, req: PayloadRequest): boolean {
  if (req.context?.[REFUSED_FILE_CONTEXT]) return true
  const failure = error as { name?: unknown; data?: { errors?: Array<{ path?: unknown }> } } | undefined
  return failure?.name === 'ValidationError' && Array.isArray(failure.data?.errors) && failure.data.errors.some((e) => e.path === 'file')
}

export function uploadHooks(
  adapter: HostAdapter,
  collection: CollectionConfig,
  collectionPrefix: string,
): {
  afterChange: CollectionAfterChangeHook
  afterDelete: CollectionAfterDeleteHook
  afterError: CollectionAfterErrorHook
  beforeChange: CollectionBeforeChangeHook
} {
  const keyOf = (doc: Doc | undefined, filename: string) => objectKey(collectionPrefix, documentFolder(doc), filename)

  const beforeChange: CollectionBeforeChangeHook = function keepUploadedFile({ data, operation, req }) {
    if (req.context?.[SKIP_UPLOAD_HOOKS]) return data
    if (req.file && !req.context?.[INCOMING_FILE_CONTEXT]) {
      req.context ??= {}
      req.context[INCOMING_FILE_CONTEXT] = { file: req.file, sizes: req.payloadUploadSizes } satisfies KeptFile
    }
    // The folder is settled when a file arrives or on create; a save without a file keeps the stored one.
    if (!req.file && operation !== 'create') return data
    const context = verifiedContext(req.file as UploadedFile | undefined)
    if (context && typeof context.prefix === 'string') {
      data.prefix = context.prefix
    } else {
      data.prefix = containedPrefix(collectionPrefix, typeof data.prefix === 'string' ? data.prefix : '') ?? ''
    }
    return data
  }

  const afterChange: CollectionAfterChangeHook = async function writeUploadedFiles({ doc, operation, previousDoc, req }) {
    if (req.context?.[SKIP_UPLOAD_HOOKS]) return doc
    const current = doc as Doc
    const files = incomingFiles(current, req)
    if (files.length === 0) return doc
    const isDraftSave = current._status === 'draft'
    const isDraftOverPublished = isDraftSave && (previousDoc as Doc | undefined)?._status === 'published'
    try {
      const results = await Promise.all(
        files
          // Client uploads are on the host already (the browser PUT them there).
          .filter((file) => !file.clientUploadContext)
          .map((file) => adapter.handleUpload({ collection, data: current, file, key: keyOf(current, file.filename), req })),
      )
      const metadata: Record<string, unknown> = Object.assign({}, ...results.filter((r) => r && typeof r === 'object'))
      // The document's own folder is never taken from an adapter's answer.
      delete metadata.prefix
      delete metadata._objectKey
      let saved: Doc = current
      if (Object.keys(metadata).length > 0) {
        req.context ??= {}
        req.context[SKIP_UPLOAD_HOOKS] = true
        req.file = undefined
        req.payloadUploadSizes = undefined
        try {
          await req.payload.update({ collection: collection.slug, data: metadata, depth: 0, draft: isDraftSave, id: current.id!, req })
        } finally {
          delete req.context[SKIP_UPLOAD_HOOKS]
        }
        saved = { ...current, ...metadata }
      }
      // The replaced files go only once the new ones and their metadata are saved.
      if (operation === 'update' && previousDoc && !isDraftOverPublished) {
        const kept = new Set(fileNames(saved).map((name) => keyOf(saved, name)))
        await Promise.all(
          fileNames(previousDoc as Doc)
            .map((name) => ({ key: keyOf(previousDoc as Doc, name), name }))
            .filter(({ key }) => !kept.has(key))
            .map(({ key, name }) => adapter.handleDelete({ collection, doc: previousDoc as Doc, filename: name, key, req })),
        )
      }
      return saved === current ? doc : saved
    } catch (err) {
      req.payload.logger.error({ err, msg: `storage-host: storing the files of ${collection.slug} "${String(current.filename)}" failed` })
      throw err
    }
  }

  const afterDelete: CollectionAfterDeleteHook = async function deleteStoredFiles({ doc, req }) {
    const stored = doc as Doc
    try {
      await Promise.all(fileNames(stored).map((name) => adapter.handleDelete({ collection, doc: stored, filename: name, key: keyOf(stored, name), req })))
    } catch (err) {
      req.payload.logger.error({ err, msg: `storage-host: deleting the files of ${collection.slug} ${String(stored.id)} failed` })
    }
    return doc
  }

  const afterError: CollectionAfterErrorHook = async function discardRefusedUpload({ error, req }) {
    const file = req.file as UploadedFile | undefined
    const context = verifiedContext(file)
    // Only a verified storage upload: its folder was signed by the plugin (a video's receipt names a video).
    if (!file || !context || typeof context.prefix !== 'string' || !refusedTheFile(error, req)) return
    const key = keyOf(context, file.name)
    try {
      // The receipt of an existing document sent again must not take that document's file with it.
      const holders = await req.payload.find({
        collection: collection.slug,
        depth: 0,
        limit: 100,
        overrideAccess: true,
        pagination: false,
        where: { filename: { equals: file.name } },
      })
      if (holders.docs.some((doc) => keyOf(doc as Doc, file.name) === key)) return
      await adapter.handleDelete({ collection, doc: {}, filename: file.name, key, req })
    } catch (err) {
      req.payload.logger.warn({
        err,
        msg: `storage-host: removing the refused upload "${file.name}" of ${collection.slug} failed; the orphan sweep removes it`,
      })
    }
  }

  return { afterChange, afterDelete, afterError, beforeChange }
}
