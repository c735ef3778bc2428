/**
 * @module collections/withSingleUseReceipts
 * Every targeted collection: the request's operation is remembered (a failed create is undone), a client
 * upload's reference is verified (4.x: by the plugin), then its receipt is spent: one document per receipt.
 */
import { rememberOperation } from '../adapter/uploadTracker.js'
import type { PluginContext } from '../context.js'
import { singleUseReceipts } from '../hooks/singleUseReceipts.js'
import { verifyUploadReferenceHook } from '../hooks/verifyUploadReference.js'
import type { CollectionExtension } from './collectionExtension.js'

/**
 * What the file rules of `verifyUploadReferenceHook` answer on a write with a file, declared for plugin-openapi
 * (`custom.openapi.responses` of a collection), so the description lists it.
 */
const refused = { 415: { description: 'The file is of a restricted type, or its content does not match the declared type.' } }
const openapi = { responses: { 'PATCH /': refused, 'PATCH /{id}': refused, 'POST /': refused } }

export function withSingleUseReceipts(ctx: PluginContext): CollectionExtension {
  // One memory of used receipts per plugin instance, shared by its collections.
  const receipts = singleUseReceipts(ctx)
  return function singleUse({ collection }) {
    return {
      ...collection,
      custom: { ...collection.custom, openapi: { ...(collection.custom?.openapi as object | undefined), ...openapi } },
      hooks: {
        ...collection.hooks,
        afterError: [...(collection.hooks?.afterError ?? []), receipts.afterError],
        afterOperation: [...(collection.hooks?.afterOperation ?? []), receipts.afterOperation],
        beforeOperation: [rememberOperation, verifyUploadReferenceHook, receipts.beforeOperation, ...(collection.hooks?.beforeOperation ?? [])],
      },
    }
  }
}
