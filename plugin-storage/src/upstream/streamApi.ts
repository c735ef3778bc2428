/**
 * @module upstream/streamApi
 * The streaming host's video API: `{apiBase}/library/{libraryId}/videos[/{guid}[/resolutions]]` with the
 * `AccessKey` header.
 */
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'

import { requestJson } from './requestJson.js'
import { upstreamFetch } from './upstreamFetch.js'
import { UpstreamError } from '../errors.js'

export interface StreamApiConfig {
  apiBase: string
  libraryId: number
  apiKey: string
}

/** The fields of the host's video object the plugin reads. */
export interface StreamVideo {
  guid: string
  videoLibraryId: number
  title?: string
  /** 0 Created, 1 Uploaded, 2 Processing, 3 Transcoding, 4 Finished, 5 Error, 6 UploadFailed, ... */
  status: number
  encodeProgress?: number
  availableResolutions?: string | null
  hasMP4Fallback?: boolean
  storageSize?: number
}

export interface Mp4Resolution {
  resolution: string
  path: string
}

const videosUrl = (c: StreamApiConfig, guid?: string): string => `${c.apiBase}/library/${c.libraryId}/videos${guid ? `/${encodeURIComponent(guid)}` : ''}`

async function call<T>(operation: string, url: string, c: StreamApiConfig, init: { method?: string; body?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { AccessKey: c.apiKey, Accept: 'application/json' }
  if (init.body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await requestJson(operation, url, { body: init.body, headers, method: init.method })
  if (res.status < 200 || res.status >= 300) throw new UpstreamError(operation, res.status)
  return (res.text ? JSON.parse(res.text) : {}) as T
}

/** Creates a video record and answers it (its `guid` is the video id). */
export function createVideo(c: StreamApiConfig, title: string, thumbnailTime?: number): Promise<StreamVideo> {
  const body: Record<string, unknown> = { title }
  if (thumbnailTime !== undefined) body.thumbnailTime = thumbnailTime
  return call<StreamVideo>('Creating the video', videosUrl(c), c, { method: 'POST', body: JSON.stringify(body) })
}

/** Sends a video's bytes from a local file (the host's Upload Video, `PUT .../videos/{guid}`): one upload per video. */
export async function uploadVideoFile(c: StreamApiConfig, guid: string, file: { path: string; size: number }): Promise<void> {
  const operation = 'Uploading the video'
  const res = await upstreamFetch(operation, videosUrl(c, guid), {
    // Cast: Node's web ReadableStream and the DOM lib's are the same at run time but distinct types.
    body: Readable.toWeb(createReadStream(file.path)) as unknown as BodyInit,
    duplex: 'half',
    headers: { AccessKey: c.apiKey, 'Content-Length': String(file.size), 'Content-Type': 'application/octet-stream' },
    method: 'PUT',
  } as RequestInit)
  await res.body?.cancel()
  if (!res.ok) throw new UpstreamError(operation, res.status)
}

/** Reads a video. */
export function getVideo(c: StreamApiConfig, guid: string): Promise<StreamVideo> {
  return call<StreamVideo>('Reading the video', videosUrl(c, guid), c)
}

/** Deletes a video; a video already gone counts as deleted. */
export async function deleteVideo(c: StreamApiConfig, guid: string): Promise<void> {
  try {
    await call<unknown>('Deleting the video', videosUrl(c, guid), c, { method: 'DELETE' })
  } catch (err) {
    if (err instanceof UpstreamError && err.isNotFound()) return
    throw err
  }
}

/** MP4 fallback renditions of a video (`data.mp4Resolutions`). */
export async function getMp4Resolutions(c: StreamApiConfig, guid: string): Promise<Mp4Resolution[]> {
  const res = await call<{ data?: { mp4Resolutions?: Mp4Resolution[] } }>('Reading the resolutions', `${videosUrl(c, guid)}/resolutions`, c)
  return res.data?.mp4Resolutions ?? []
}

/** One page of the library's videos (`GET /library/{id}/videos?page=&itemsPerPage=`). */
export function listVideos(
  c: StreamApiConfig,
  page: number,
  itemsPerPage: number,
): Promise<{ items: Array<StreamVideo & { dateUploaded?: string }>; totalItems: number; itemsPerPage: number }> {
  return call('Listing the videos', `${videosUrl(c)}?page=${page}&itemsPerPage=${itemsPerPage}`, c)
}
