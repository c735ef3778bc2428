/**
 * @module endpoints/playback
 * `GET /api/{videoCollection}/{id}/playback` (a collection endpoint): the player URLs of a document's
 * finished video, per the session contract: `{ hls?, mp4: [{resolution, url}], thumbnail?, expiresAt? }`.
 * The collection's read access runs for that document (Payload's `findByID` without `overrideAccess`):
 * a refused reader gets 403 in the plugin's error shape and no URL; 404 when the document does not exist
 * or its video is not finished.
 *
 * Interim version written by branch `media-admin` so the admin player can be tested; branch
 * `media-server` owns the endpoint (token-signed URLs) and its version replaces this one at merge.
 */
import type { Endpoint } from 'payload'

import type { StreamHostData } from '../types.js'
import { HttpError, withErrors } from './httpError.js'

/** 200 body of the playback endpoint. */
export interface PlaybackResponse {
  hls?: string
  mp4: Array<{ resolution: string; url: string }>
  thumbnail?: string
  expiresAt?: string
}

/** The endpoint for one stream collection. */
export function playbackEndpoint(collectionSlug: string): Endpoint {
  return {
    handler: withErrors('playback', async (req) => {
      const id = req.routeParams?.id
      if (typeof id !== 'string' && typeof id !== 'number') throw new HttpError(404, 'Not Found')
      const doc = await req.payload
        .findByID({ collection: collectionSlug as never, depth: 0, disableErrors: false, id, overrideAccess: false, req })
        .catch((err: { status?: number }) => {
          // Access refusals (403) keep their status; anything "not found" (a bad id included) is a 404.
          if (err?.status === 403) throw err
          throw new HttpError(404, 'Not Found')
        })
      const stream = (doc as { hostData?: { stream?: StreamHostData } }).hostData?.stream
      if (!stream?.videoId || stream.status !== 'finished') throw new HttpError(404, 'This document has no finished video.')
      const body: PlaybackResponse = {
        mp4: (stream.resolutions ?? []).filter((r) => r.resolution && r.url).map((r) => ({ resolution: r.resolution, url: r.url })),
      }
      if (stream.playlistUrl) body.hls = stream.playlistUrl
      if (stream.thumbnailUrl) body.thumbnail = stream.thumbnailUrl
      return Response.json(body, { headers: { 'Cache-Control': 'private, no-store' } })
    }),
    method: 'get',
    path: '/:id/playback',
  }
}
