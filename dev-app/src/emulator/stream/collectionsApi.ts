/**
 * @module emulator/stream/collectionsApi
 * `/library/{id}/collections[/{collectionId}]`: list (paged like the videos), create `{name}`, get,
 * rename (`POST {name}`) and delete. A collection's object carries `videoCount` and `totalSize` of
 * the videos that point at it; deleting one leaves its videos outside any collection.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EmulatorContext } from '../context.js'
import { readJsonBody } from '../http/readJsonBody.js'
import { sendJson } from '../http/sendJson.js'
import { apiStatus } from './apiStatus.js'
import type { CollectionRecord } from './CollectionStore.js'

function toCollectionObject(collection: CollectionRecord, ctx: EmulatorContext): Record<string, unknown> {
  const videos = ctx.videos.list().filter((video) => video.collectionId === collection.guid)
  return {
    videoLibraryId: ctx.options.libraryId,
    guid: collection.guid,
    name: collection.name,
    videoCount: videos.length,
    totalSize: videos.reduce((sum, video) => sum + video.storageSize, 0),
    previewVideoIds: null,
    previewImageUrls: null,
  }
}

async function readName(req: IncomingMessage): Promise<string | undefined> {
  const body = (await readJsonBody(req)) as { name?: unknown } | undefined
  return typeof body?.name === 'string' && body.name.trim() !== '' ? body.name : undefined
}

export async function collectionsApi(
  req: IncomingMessage,
  res: ServerResponse,
  id: string | undefined,
  query: URLSearchParams,
  ctx: EmulatorContext,
): Promise<void> {
  if (id === undefined) {
    if (req.method === 'GET') {
      const page = Math.max(1, Number(query.get('page')) || 1)
      const itemsPerPage = Math.min(1000, Math.max(1, Number(query.get('itemsPerPage')) || 100))
      const all = ctx.collections.list()
      return sendJson(res, 200, {
        totalItems: all.length,
        currentPage: page,
        itemsPerPage,
        items: all.slice((page - 1) * itemsPerPage, page * itemsPerPage).map((c) => toCollectionObject(c, ctx)),
      })
    }
    if (req.method !== 'POST') {
      req.resume()
      return apiStatus(res, 405, 'Method Not Allowed')
    }
    const name = await readName(req)
    if (!name) return apiStatus(res, 400, 'The name field is required.')
    return sendJson(res, 200, toCollectionObject(ctx.collections.create(name), ctx))
  }
  const collection = ctx.collections.get(id)
  if (!collection) {
    req.resume()
    return apiStatus(res, 404, 'Collection not found')
  }
  switch (req.method) {
    case 'GET':
      return sendJson(res, 200, toCollectionObject(collection, ctx))
    case 'POST': {
      const name = await readName(req)
      if (!name) return apiStatus(res, 400, 'The name field is required.')
      collection.name = name
      return apiStatus(res, 200, 'OK')
    }
    case 'DELETE':
      ctx.collections.delete(id)
      for (const video of ctx.videos.list()) if (video.collectionId === id) video.collectionId = ''
      return apiStatus(res, 200, 'OK')
    default:
      req.resume()
      return apiStatus(res, 405, 'Method Not Allowed')
  }
}
