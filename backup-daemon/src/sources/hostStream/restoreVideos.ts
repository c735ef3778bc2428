/**
 * @module sources/hostStream/restoreVideos
 * Puts the videos of a `host-stream` source's archive folder (`library.json`, `<guid>/video.json`,
 * the archived file, `captions/*.vtt`) into a library, the same one or another: each video is
 * created with its title and collection (found by name in the target library, created when missing),
 * its bytes uploaded (`PUT`), its chapters, moments and meta tags set and its captions added. Returns
 * old GUID → new GUID, which a CMS-aware step needs to rewrite the documents that point at videos.
 * Offered by the CLI's `restore --to DIR --into-library` through `uploadRestore.ts`.
 */
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { forEachLimited } from './forEachLimited.js'
import { StreamLibraryApi } from './streamLibraryApi.js'
import type { LibraryJson, VideoJson } from './videoRecord.js'

export interface RestoreVideosOptions {
  /** The source's folder as restored from a snapshot: holds `library.json`. */
  dir: string
  /** The library to restore into. */
  target: { apiBase: string; libraryId: number; apiKey: string }
  /** Uploads at a time. @default 3 */
  workers?: number
  signal?: AbortSignal
  log?: (level: 'info' | 'warn', message: string) => void
}

export interface RestoreVideosResult {
  /** Old GUID → new GUID, for every video restored. */
  guidMap: Record<string, string>
  /** Old GUIDs of videos that had nothing archived (only metadata): not created. */
  skipped: string[]
}

/** Thrown when a video fails; `partial` holds what was restored before. */
export class RestoreVideosError extends Error {
  constructor(
    message: string,
    readonly partial: RestoreVideosResult,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'RestoreVideosError'
  }
}

export async function restoreVideos(options: RestoreVideosOptions): Promise<RestoreVideosResult> {
  const { dir, signal } = options
  const log = options.log ?? (() => {})
  const api = new StreamLibraryApi(options.target)
  const library = JSON.parse(await readFile(join(dir, 'library.json'), 'utf8')) as LibraryJson
  const result: RestoreVideosResult = { guidMap: {}, skipped: [] }
  const collections = new CollectionsByName(api, signal)
  try {
    await forEachLimited(library.videos, options.workers ?? 3, async ({ guid }) => {
      signal?.throwIfAborted()
      const video = JSON.parse(await readFile(join(dir, guid, 'video.json'), 'utf8')) as VideoJson
      if (!video.archived) {
        log('warn', `video ${guid} ("${video.title}") has no archived file: not restored`)
        result.skipped.push(guid)
        return
      }
      result.guidMap[guid] = await restoreOne(api, join(dir, guid), video, collections, signal)
      log('info', `video ${guid} ("${video.title}") restored as ${result.guidMap[guid]}`)
    })
  } catch (err) {
    if (signal?.aborted) throw signal.reason
    throw new RestoreVideosError((err as Error).message, result, { cause: err })
  }
  return result
}

async function restoreOne(api: StreamLibraryApi, folder: string, video: VideoJson, collections: CollectionsByName, signal?: AbortSignal): Promise<string> {
  const step = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (err) {
      if (signal?.aborted) throw signal.reason
      throw new Error(`video ${video.guid} ("${video.title}"): ${what} failed: ${(err as Error).message}`, { cause: err })
    }
  }
  const collectionId = video.collection?.name ? await step('finding its collection', () => collections.idOf(video.collection!.name!)) : undefined
  const created = await step('creating it', () =>
    api.json<{ guid: string }>('POST', 'videos', { body: { title: video.title, ...(collectionId && { collectionId }) }, signal }),
  )
  const guid = created!.guid
  try {
    const file = join(folder, video.archived!.file)
    const { size } = await stat(file)
    await step('uploading its file', () => api.upload(guid, createReadStream(file), size, signal))
    const details = {
      ...(video.chapters.length > 0 && { chapters: video.chapters }),
      ...(video.moments.length > 0 && { moments: video.moments }),
      ...(video.metaTags.length > 0 && { metaTags: video.metaTags }),
    }
    if (Object.keys(details).length > 0) await step('setting its chapters', () => api.json('POST', `videos/${guid}`, { body: details, signal }))
    for (const caption of video.captions) {
      const bytes = await readFile(join(folder, caption.file))
      const body = { srclang: caption.srclang, label: caption.label, captionsFile: bytes.toString('base64') }
      await step(`adding its ${caption.srclang} captions`, () =>
        api.json('POST', `videos/${guid}/captions/${encodeURIComponent(caption.srclang)}`, { body, signal }),
      )
    }
    return guid
  } catch (err) {
    // A half-restored video is removed rather than left empty in the library.
    await api.json('DELETE', `videos/${guid}`, { allow404: true }).catch(() => {})
    throw err
  }
}

/** The target library's collections by name, read once; a missing one is created once. */
class CollectionsByName {
  private byName: Promise<Map<string, Promise<string>>> | undefined

  constructor(
    private readonly api: StreamLibraryApi,
    private readonly signal?: AbortSignal,
  ) {}

  async idOf(name: string): Promise<string> {
    this.byName ??= this.load()
    const map = await this.byName
    let id = map.get(name)
    if (!id) {
      id = this.api.json<{ guid: string }>('POST', 'collections', { body: { name }, signal: this.signal }).then((c) => c!.guid)
      map.set(name, id)
    }
    return id
  }

  private async load(): Promise<Map<string, Promise<string>>> {
    const map = new Map<string, Promise<string>>()
    for (let page = 1; ; page++) {
      const body = await this.api.json<{ totalItems: number; items: { guid: string; name: string }[] }>('GET', `collections?page=${page}&itemsPerPage=100`, {
        signal: this.signal,
      })
      for (const item of body?.items ?? []) if (!map.has(item.name)) map.set(item.name, Promise.resolve(item.guid))
      if (!body || body.items.length === 0 || page * 100 >= body.totalItems) return map
    }
  }
}
