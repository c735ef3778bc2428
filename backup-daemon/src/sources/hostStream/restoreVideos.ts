/**
 * @module sources/hostStream/restoreVideos
 * Puts the videos of a `host-stream` source's archive folder (`library.json`, `<guid>/video.json`,
 * the archived file, `captions/*.vtt`) into a library, the same one or another: each video is
 * created with its title and collection (found by name in the target library, created when missing),
 * its bytes uploaded (`PUT`), its chapters, moments and meta tags set and its captions added. Returns
 * old GUID → new GUID, which a CMS-aware step needs to rewrite the documents that point at videos.
 * Offered by the CLI's `restore --to DIR --into-library` through `uploadRestore.ts`.
 *
 * A snapshot is untrusted input: every path `library.json` and `video.json` name is read only inside the
 * source's folder, without following a link (`tar/openInside`), so a crafted snapshot cannot make the
 * restore upload `/etc/shadow` or another file of this machine into the library.
 */
import { safeComponents, UnsafeEntryError } from '../../tar/entryPath.js'
import { openInside, readInside } from '../../tar/openInside.js'
import { closeSync, createReadStream } from 'node:fs'
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
  const library = parseJson<LibraryJson>(readInside(dir, 'library.json', "the snapshot's library.json"), 'library.json')
  if (!Array.isArray(library.videos)) throw new Error('the snapshot\'s library.json lists no "videos"')
  const result: RestoreVideosResult = { guidMap: {}, skipped: [] }
  const collections = new CollectionsByName(api, signal)
  try {
    await forEachLimited(library.videos, options.workers ?? 3, async ({ guid }) => {
      signal?.throwIfAborted()
      // Each video is the folder `<guid>/`: one plain name, nothing that could lead elsewhere.
      if (typeof guid !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(guid))
        throw new Error(`the snapshot's library.json names a video ${JSON.stringify(guid)} that is not a video id`)
      const video = parseJson<VideoJson>(readInside(dir, `${guid}/video.json`, `video ${guid}: its video.json`), `${guid}/video.json`)
      if (!video.archived) {
        log('warn', `video ${guid} ("${video.title}") has no archived file: not restored`)
        result.skipped.push(guid)
        return
      }
      result.guidMap[guid] = await restoreOne(api, dir, guid, video, collections, signal)
      log('info', `video ${guid} ("${video.title}") restored as ${result.guidMap[guid]}`)
    })
  } catch (err) {
    if (signal?.aborted) throw signal.reason
    throw new RestoreVideosError((err as Error).message, result, { cause: err })
  }
  return result
}

/** `bytes` as JSON, or an error naming the file. */
function parseJson<T>(bytes: Buffer, name: string): T {
  try {
    return JSON.parse(bytes.toString('utf8')) as T
  } catch (err) {
    throw new Error(`the snapshot's ${name} is not JSON: ${(err as Error).message}`, { cause: err })
  }
}

async function restoreOne(
  api: StreamLibraryApi,
  dir: string,
  guid: string,
  video: VideoJson,
  collections: CollectionsByName,
  signal?: AbortSignal,
): Promise<string> {
  const step = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (err) {
      if (signal?.aborted) throw signal.reason
      throw new Error(`video ${video.guid} ("${video.title}"): ${what} failed: ${(err as Error).message}`, { cause: err })
    }
  }
  // Checked before anything is created: a path that escapes (or a missing file) creates nothing in the library.
  // Each path is one inside `<guid>/`: checked alone first (an absolute one is refused as that), then from the source's folder.
  const inFolder = (file: unknown, what: string) => {
    if (typeof file !== 'string') throw new UnsafeEntryError(what, String(file), 'it is not a path')
    return `${guid}/${safeComponents(file, what).join('/')}`
  }
  const fileWhat = `video ${guid}: its archived file`
  const archived = openInside(dir, inFolder(video.archived!.file, fileWhat), fileWhat)
  const captions: Buffer[] = []
  let collectionId: string | undefined
  try {
    for (const caption of video.captions ?? []) {
      const what = `video ${guid}: its ${caption.srclang} captions`
      captions.push(readInside(dir, inFolder(caption.file, what), what))
    }
    collectionId = video.collection?.name ? await step('finding its collection', () => collections.idOf(video.collection!.name!)) : undefined
  } catch (err) {
    closeSync(archived.fd)
    throw err
  }
  const created = await step('creating it', () =>
    api.json<{ guid: string }>('POST', 'videos', { body: { title: video.title, ...(collectionId && { collectionId }) }, signal }),
  ).catch((err: Error) => {
    closeSync(archived.fd)
    throw err
  })
  const newGuid = created!.guid
  try {
    await step('uploading its file', () => api.upload(newGuid, createReadStream('', { fd: archived.fd }), archived.size, signal))
    const details = {
      ...(video.chapters.length > 0 && { chapters: video.chapters }),
      ...(video.moments.length > 0 && { moments: video.moments }),
      ...(video.metaTags.length > 0 && { metaTags: video.metaTags }),
    }
    if (Object.keys(details).length > 0) await step('setting its chapters', () => api.json('POST', `videos/${newGuid}`, { body: details, signal }))
    for (const [i, caption] of (video.captions ?? []).entries()) {
      const body = { srclang: caption.srclang, label: caption.label, captionsFile: captions[i]!.toString('base64') }
      await step(`adding its ${caption.srclang} captions`, () =>
        api.json('POST', `videos/${newGuid}/captions/${encodeURIComponent(caption.srclang)}`, { body, signal }),
      )
    }
    return newGuid
  } catch (err) {
    // A half-restored video is removed rather than left empty in the library.
    await api.json('DELETE', `videos/${newGuid}`, { allow404: true }).catch(() => {})
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
