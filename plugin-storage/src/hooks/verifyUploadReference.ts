/**
 * @module hooks/verifyUploadReference
 * Collection `beforeOperation` hook for cores with upload instructions (4.x). Such a core fetches the
 * bytes of a client upload through the adapter and trusts the client's `uploadReference`; this hook
 * checks the plugin's receipt in it before anything else of the operation runs (a forged, foreign or
 * expired one is a 400 and nothing is written), puts the verified context where a 3.x core puts it
 * (`req.file.clientUploadContext`, read by the bind hook), and stores the upload's folder as the
 * document's `prefix` so the file, its sizes and later reads all use the same key.
 */
import type { PayloadRequest } from 'payload'

import { verifyUploadReference } from '../payload/uploadReference.js'

type UploadedFile = NonNullable<PayloadRequest['file']> & { uploadReference?: unknown; clientUploadContext?: unknown }

export const verifyUploadReferenceHook = ({
  args,
  collection,
  operation,
}: {
  args: { data?: Record<string, unknown>; req?: PayloadRequest }
  collection: { slug: string }
  operation: string
}): typeof args => {
  const file = args.req?.file as UploadedFile | undefined
  if (!file || file.uploadReference === undefined || file.clientUploadContext !== undefined) return args
  if (operation !== 'create' && operation !== 'update' && operation !== 'updateByID') return args
  const context = verifyUploadReference(args.req!, collection.slug, file.name, file.uploadReference)
  file.clientUploadContext = context
  if (typeof context.prefix === 'string' && context.prefix && args.data) args.data.prefix = context.prefix
  return args
}
