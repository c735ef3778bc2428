/**
 * @module endpoints/playback
 * `GET /api/{videoCollection}/{id}/playback` (a collection endpoint of every stream collection): the
 * player URLs of a document's video, `{hls, mp4: [{resolution, url}], thumbnail, expiresAt?}`
 * (`PlaybackUrls`). The collection's read access runs for that document as the signed-in user: refused
 * is 403 and no URL (also when a query-style access hides an existing document: the caller asked for it
 * by id, and "not found" would be wrong); 404 when the document does not exist or its video has not
 * finished encoding. With the stream pull zone's token authentication the URLs are signed and short-lived.
 */
import type { Endpoint, PayloadRequest } from 'payload'

import type { ResolvedStream } from '../options/resolveOptions.js'
import { playbackOperation } from '../openapi/operations.js'
import { playbackUrls } from '../stream/playbackUrls.js'
import type { StreamHostData } from '../types.js'
import { HttpError } from '../errors.js'
import { withErrors } from './withErrors.js'

/** Collection-relative path of the endpoint. */
export const PLAYBACK_PATH = '/:id/playback'

const statusOf = (err: unknown): number | undefined =>
  err && typeof err === 'object' && typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : undefined

/** Whether a document exists at all (access bypassed: only to tell "refused" from "missing"). */
async function exists(req: PayloadRequest, collection: string, id: string): Promise<boolean> {
  try {
    const { totalDocs } = await req.payload.count({ collection, overrideAccess: true, where: { id: { equals: id } } })
    return totalDocs > 0
  } catch {
    return false
  }
}

async function readStreamData(req: PayloadRequest, collection: string, id: string): Promise<StreamHostData | undefined> {
  try {
    const doc = await req.payload.findByID({ collection, depth: 0, id, overrideAccess: false, user: req.user })
    return (doc as { hostData?: { stream?: StreamHostData } }).hostData?.stream ?? undefined
  } catch (err) {
    const status = statusOf(err)
    if (status === 403 || (status === 404 && (await exists(req, collection, id)))) throw new HttpError(403, 'You are not allowed to play this video.')
    if (status === 404) throw new HttpError(404, 'No such document.')
    throw err
  }
}

async function handlePlayback(stream: ResolvedStream, collection: string, req: PayloadRequest): Promise<Response> {
  const id = String(req.routeParams?.id ?? '')
  if (!id) throw new HttpError(404, 'No such document.')
  const data = await readStreamData(req, collection, id)
  const videoId = data?.videoId
  if (!videoId || data.status !== 'finished') throw new HttpError(404, 'This document has no finished video.')
  // Signed URLs expire: no shared cache may keep the answer.
  return Response.json(playbackUrls(stream, { ...data, videoId }, req.headers), { headers: { 'Cache-Control': 'private, no-store' } })
}

/** The endpoint of one stream collection. */
export function playbackEndpoint(stream: ResolvedStream, collection: string): Endpoint {
  return {
    custom: { openapi: playbackOperation(collection) },
    handler: withErrors('playback', (req) => handlePlayback(stream, collection, req)),
    method: 'get',
    path: PLAYBACK_PATH,
  }
}
