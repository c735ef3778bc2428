/**
 * @module sources/hostStream/StreamLibrarySource
 * The `host-stream` source: every video of a streaming library, listed page by page through the
 * library API, archived as `<name>/<guid>/original.<ext>` (or, where the host keeps no original, its
 * highest MP4 rendition `play_<h>p.mp4`, said in the job log), `<name>/<guid>/captions/<lang>.vtt`,
 * `<name>/<guid>/video.json` (metadata a restore needs, see `videoRecord`) and `<name>/library.json`
 * (every guid with the size and sha256 of what was archived). Downloads come from the library's pull
 * zone, `workers` at a time, through `support/mirrorRemote` into a local folder that is archived like
 * a `local` source; with `syncPath` that folder is kept and only new or changed videos are downloaded
 * (`videoFingerprint`), and the source can be handed over as that folder (`tree`: a restic repository
 * backs it up as a path). A failure names the video; the run fails and the writer lists no snapshot.
 */
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { LocalSource } from '../local/index.js'
import { mirrorRemote, type RemoteObject } from '../support/mirrorRemote.js'
import type { Source, SourceContext, SourceEntry, SourceTree } from '../types.js'
import type { SourceRecord } from '../../tar/snapshotRecord.js'
import type { HostStreamSourceConfig } from './schema.js'
import { StreamLibraryApi, type StreamVideo } from './streamLibraryApi.js'
import { forEachLimited } from './forEachLimited.js'
import { listLibrary, planPayload, type Payload } from './planVideos.js'
import { sniffVideoExtension, toVideoJson, videoFingerprint, type ArchivedFile, type LibraryJson, type VideoJson } from './videoRecord.js'

/** Name a payload is downloaded under, renamed to its final name once its type is known. */
const PAYLOAD = '.payload'

interface Download {
  video: StreamVideo
  /** File on the pull zone, `{guid}/original` etc. */
  remote: string
  payload?: Exclude<Payload, { kind: 'none' }>
  /** Filled as the bytes stream through. */
  result?: { size: number; sha256: string; head: Buffer }
}

export class StreamLibrarySource implements Source {
  readonly type = 'host-stream'
  readonly name: string
  private readonly api: StreamLibraryApi
  /** The list written to library.json this run, recorded for a restore drill (`drill.ts`). */
  private library: LibraryJson | undefined

  constructor(
    private readonly config: HostStreamSourceConfig,
    private readonly context: SourceContext,
    /** Attempts after the first of every call (tests lower it). */
    retries?: number,
  ) {
    this.name = config.name
    this.api = new StreamLibraryApi({
      apiBase: config.apiBase,
      libraryId: config.libraryId,
      apiKey: config.apiKey,
      pullZoneUrl: config.pullZoneHostname,
      pullZoneTokenAuthKey: config.pullZoneTokenAuthKey,
      pullZoneTokenTTL: config.pullZoneTokenTTL,
      retries,
    })
  }

  recorded(): SourceRecord | undefined {
    return this.library && { videos: this.library.videos.map(({ guid, title, file, size, sha256 }) => ({ guid, title, file, size, sha256 })) }
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.context.log(level, `source "${this.name}": ${message}`)
  }

  async *batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    signal.throwIfAborted()
    const dir = this.config.syncPath ?? (await mkdtemp(join(tmpdir(), 'backup-daemon-host-stream-')))
    try {
      await this.sync(dir, signal)
      yield* new LocalSource(this.name, dir, [], this.context).batches(signal)
    } finally {
      if (this.config.syncPath === undefined) await rm(dir, { recursive: true, force: true })
    }
  }

  /**
   * With `syncPath`: the mirror folder, brought up to date first (a restic repository backs it up as a
   * path: an unchanged video costs a stat). Without one, undefined: a temporary mirror would be downloaded
   * whole every run, so the entries are read instead.
   */
  async tree(signal: AbortSignal): Promise<SourceTree | undefined> {
    if (this.config.syncPath === undefined) return undefined
    signal.throwIfAborted()
    await this.sync(this.config.syncPath, signal)
    return { path: resolve(this.config.syncPath) }
  }

  /** Lists the library and mirrors it into `dir`. */
  private async sync(dir: string, signal: AbortSignal): Promise<void> {
    const videos = await listLibrary(this.api, this.config.pageSize, this.name, signal)
    this.log('info', `listed ${videos.length} video(s) in library ${this.config.libraryId}`)
    await this.fill(dir, videos, signal)
  }

  private async fill(dir: string, videos: StreamVideo[], signal: AbortSignal): Promise<void> {
    await mkdir(dir, { recursive: true })
    // Folders of videos no longer listed (and anything else) go; library.json is rewritten below.
    const keep = new Set(videos.map((v) => v.guid))
    for (const entry of await readdir(dir)) if (!keep.has(entry)) await rm(join(dir, entry), { recursive: true, force: true })

    const downloads = new Map<string, Download>()
    const kept = new Map<string, ArchivedFile>()
    const collections = new Map<string, Promise<string | null>>()
    let unchanged = 0
    await forEachLimited(videos, this.config.extraParams.workers, async (video) => {
      const folder = join(dir, video.guid)
      // Captions are small and may change without any field saying so: fetched every run.
      await rm(join(folder, 'captions'), { recursive: true, force: true })
      for (const caption of toVideoJson(video, null, null, '').captions) {
        downloads.set(`${video.guid}/${caption.file}`, { video, remote: `${video.guid}/${caption.file}` })
      }
      if (video.collectionId && !collections.has(video.collectionId)) collections.set(video.collectionId, this.collectionName(video.collectionId, signal))
      const previous = this.config.syncPath ? await readPrevious(folder) : undefined
      if (
        previous?.archived &&
        previous.fingerprint === videoFingerprint(video) &&
        (await sizeOf(join(folder, previous.archived.file))) === previous.archived.size
      ) {
        kept.set(video.guid, previous.archived)
        unchanged++
        return
      }
      const payload = await planPayload(this.api, video, this.name, signal)
      if (payload.kind === 'none')
        return this.log('warn', `video ${video.guid} ("${video.title}") has nothing to download (${payload.reason}): only its metadata is archived`)
      if (payload.kind === 'rendition') {
        this.log('warn', `video ${video.guid} ("${video.title}") has no original on the host: archived its highest MP4 rendition ${payload.file}`)
      }
      downloads.set(`${video.guid}/${PAYLOAD}`, { video, remote: `${video.guid}/${payload.kind === 'original' ? 'original' : payload.file}`, payload })
    })
    const fetched = [...downloads.values()].filter((d) => d.payload).length
    this.log('info', `${fetched} video(s) to download, ${unchanged} unchanged`)

    // No size: the API lists none for a video's original or a caption; the mirror counts what it downloads.
    const objects: RemoteObject[] = [...downloads.keys()].map((path) => ({ path, mtime: new Date(downloads.get(path)!.video.dateUploaded) }))
    await mirrorRemote({
      dir,
      objects,
      incremental: false,
      workers: this.config.extraParams.workers,
      signal,
      log: (message) => this.log('info', message),
      download: (object, s) => this.download(downloads.get(object.path)!, s),
    })

    const library: LibraryJson = { libraryId: this.config.libraryId, videoCount: videos.length, videos: [] }
    for (const video of videos) {
      const folder = join(dir, video.guid)
      let archived = kept.get(video.guid) ?? null
      const download = downloads.get(`${video.guid}/${PAYLOAD}`)
      if (download?.result && download.payload) {
        const file = download.payload.kind === 'original' ? `original.${sniffVideoExtension(download.result.head)}` : download.payload.file
        await rename(join(folder, PAYLOAD), join(folder, file))
        archived = { file, kind: download.payload.kind === 'original' ? 'original' : 'rendition', size: download.result.size, sha256: download.result.sha256 }
      }
      // What else an earlier run left: a payload under another name (a rendition, now that the original is
      // kept), a partial download of a crashed run.
      for (const entry of await readdir(folder).catch(() => [] as string[])) {
        if (entry !== 'video.json' && entry !== 'captions' && entry !== archived?.file) await rm(join(folder, entry), { recursive: true, force: true })
      }
      const name = video.collectionId ? await collections.get(video.collectionId)! : null
      const json = toVideoJson(video, name, archived, videoFingerprint(video))
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, 'video.json'), `${JSON.stringify(json, null, 2)}\n`)
      library.videos.push({
        guid: video.guid,
        title: video.title,
        file: archived?.file ?? null,
        kind: archived?.kind ?? null,
        size: archived?.size ?? null,
        sha256: archived?.sha256 ?? null,
      })
    }
    await writeFile(join(dir, 'library.json'), `${JSON.stringify(library, null, 2)}\n`)
    this.library = library
  }

  private async collectionName(id: string, signal: AbortSignal): Promise<string | null> {
    try {
      const body = await this.api.json<{ name?: string }>('GET', `collections/${encodeURIComponent(id)}`, { signal, allow404: true })
      return body?.name ?? null
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new Error(`source "${this.name}": reading collection ${id} failed: ${(err as Error).message}`, { cause: err })
    }
  }

  private async download(download: Download, signal: AbortSignal): Promise<Readable> {
    const { video, remote } = download
    let body: Readable
    try {
      body = await this.api.download(remote, signal)
    } catch (err) {
      if (signal.aborted) throw signal.reason
      throw new Error(
        `source "${this.name}": video ${video.guid} ("${video.title}"): downloading ${remote.slice(video.guid.length + 1)} failed: ${(err as Error).message}`,
        {
          cause: err,
        },
      )
    }
    const hash = createHash('sha256')
    const head: Buffer[] = []
    let size = 0
    const digest = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (size < 64) head.push(chunk.subarray(0, 64 - size))
        size += chunk.length
        hash.update(chunk)
        callback(null, chunk)
      },
      flush(callback) {
        download.result = { size, sha256: hash.digest('hex'), head: Buffer.concat(head) }
        callback()
      },
    })
    body.on('error', (err) => digest.destroy(err))
    return body.pipe(digest)
  }
}

async function readPrevious(folder: string): Promise<VideoJson | undefined> {
  try {
    return JSON.parse(await readFile(join(folder, 'video.json'), 'utf8')) as VideoJson
  } catch {
    return undefined
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  return (await stat(file).catch(() => undefined))?.size
}
