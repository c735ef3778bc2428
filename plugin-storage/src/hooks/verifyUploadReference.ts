/**
 * @module hooks/verifyUploadReference
 * Collection `beforeOperation` hook of every plugin collection, first of the plugin's checks on a file
 * that reaches a document save:
 * - cores with upload instructions (4.x) fetch the bytes of a client upload through the adapter and trust
 *   the client's `uploadReference`; this hook checks the plugin's receipt in it before anything else of
 *   the operation runs (a forged, foreign or expired one is a 400 and nothing is written), puts the
 *   verified context where a 3.x core puts it (`req.file.clientUploadContext`, read by the bind hook),
 *   and stores the upload's folder as the document's `prefix` so the file, its sizes and later reads all
 *   use the same key;
 * - every file (sent through the CMS, or a client upload read back) then passes the plugin's file rules
 *   (`validation/uploadedFileRules.ts`): the admin sends SVG and XML through the CMS, not as a client
 *   upload, and Payload alone accepts them. A refused client upload is then removed from the host by the
 *   wiring's `afterError` hook (`wiring/uploadHooks.ts`).
 */
import type { CollectionBeforeOperationHook, PayloadRequest } from 'payload'

import { verifyUploadReference } from '../payload/uploadReference.js'
import { assertUploadedFile } from '../validation/uploadedFileRules.js'
import { REFUSED_FILE_CONTEXT } from '../wiring/uploadHooks.js'

type UploadedFile = NonNullable<PayloadRequest['file']> & { uploadReference?: unknown; clientUploadContext?: unknown }

/** The document data of a write operation's arguments (create and update carry `data`). */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

const WRITES = new Set(['create', 'update', 'updateByID'])

export const verifyUploadReferenceHook: CollectionBeforeOperationHook = async ({ args, collection, operation }) => {
  const file = args.req?.file as UploadedFile | undefined
  if (!file || !WRITES.has(operation)) return args
  if (file.uploadReference !== undefined && file.clientUploadContext === undefined) {
    const context = verifyUploadReference(args.req!, collection.slug, file.name, file.uploadReference)
    file.clientUploadContext = context
    const data: unknown = 'data' in args ? args.data : undefined
    if (typeof context.prefix === 'string' && context.prefix && isRecord(data)) data.prefix = context.prefix
  }
  try {
    await assertUploadedFile(file, collection)
  } catch (err) {
    // The wiring's `afterError` removes a client upload the rules refused (it can never become a document).
    const req = args.req!
    req.context ??= {}
    req.context[REFUSED_FILE_CONTEXT] = true
    throw err
  }
  return args
}
