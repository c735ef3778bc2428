/**
 * @module wiring/hostAdapter
 * The contract between the plugin's upload plumbing (`wiring/`) and the two hosts' adapters
 * (`adapter/storageAdapter.ts`, `adapter/streamAdapter.ts`): the four actions every storage adapter of
 * Payload has (upload, delete, serve, URL), with the object key computed once by the wiring.
 */
import type { CollectionConfig, PayloadRequest, TypeWithID } from 'payload'

/** One file of a save: the original or one generated image size. */
export interface IncomingFile {
  /** The bytes when they are in memory (empty when Payload wrote them to `tempFilePath`). */
  buffer?: Buffer
  filename: string
  filesize: number
  mimeType: string
  tempFilePath?: string
  /** Set when the bytes are on the host already (a client upload): nothing is written. */
  clientUploadContext?: unknown
}

/** What the core passes to a file handler: `GET /api/{collection}/file/{filename}` and the read-back of a client upload. */
export interface ServeArgs {
  /** The access-checked document, when the core has one (read access as a query). */
  doc?: TypeWithID & { _objectKey?: string; prefix?: string }
  headers?: Headers
  params: {
    collection: string
    filename: string
    prefix?: string
    /** Payload 3: the verified receipt context of a client upload being read back. */
    clientUploadContext?: unknown
    /** Payload 4: the client's upload reference of a client upload being read back (not verified by the core). */
    uploadReference?: unknown
  }
}

/** The capability a Payload 4 core reads from `upload.uploadInstructions` (`POST /api/upload-instructions`). */
export interface UploadInstructionsCapability {
  generate: (args: {
    collectionSlug: string
    docPrefix?: string
    filename: string
    filesize: number
    mimeType: string
    overrideAccess?: boolean
    req: PayloadRequest
  }) => Promise<unknown>
  useInAdmin: boolean
}

export interface HostAdapter {
  /** Recorded as the collection's `upload.adapter`. */
  name: string
  /** Writes one file to `key`. What it answers is merged into the document (e.g. `hostData`). */
  handleUpload(args: {
    collection: CollectionConfig
    data: Record<string, unknown>
    file: IncomingFile
    key: string
    req: PayloadRequest
  }): Promise<Record<string, unknown> | void>
  /** Removes one stored file (idempotent). */
  handleDelete(args: { collection: CollectionConfig; doc: Record<string, unknown>; filename: string; key: string; req: PayloadRequest }): Promise<void>
  /** Serves a file request, or the core's read-back of a client upload. */
  staticHandler(req: PayloadRequest, args: ServeArgs): Promise<Response> | Response
  /**
   * The URL documents carry when files are public (`storage.publicUrls`), computed when a document is read
   * for the reader of `req`: `undefined` when files are not public, `null` when this reader gets no URL.
   */
  publicUrl?(key: string, req?: PayloadRequest): string | null | undefined
  /** Payload 4: the adapter's answer to `POST /api/upload-instructions`. */
  uploadInstructions?: UploadInstructionsCapability
}
