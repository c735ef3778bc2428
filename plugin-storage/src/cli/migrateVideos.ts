/**
 * @module cli/migrateVideos
 * `payload storage-host migrate --collection <stream collection>`: moves a video collection's existing files
 * (where Payload kept them before: `--from local` or `--from s3`, `cli/fileSources.ts`) into its video
 * library, and binds each document to its new video; the host then encodes it and its callbacks fill the
 * document in, as for a video uploaded in the admin.
 * - Each video is created with a title that names its document (`clip.mp4 [videos 12]`), so a run after a kill
 *   finds what an earlier one created: a video that already holds the file's bytes is bound without sending
 *   them again, one created but never sent gets them now, one whose upload broke off is deleted and made anew.
 * - A document already bound to a video is left as it is: running again moves only what is left.
 * - After each upload the host's `storageSize` must be the file's size (when the host reports it yet).
 * - `--dry-run` reads and reports, and writes nothing.
 */
import { INTERNAL_UPDATE_CONTEXT } from '../constants.js'
import { documentFolder } from '../keys/objectKeys.js'
import type { ResolvedCollection, ResolvedStream } from '../options/resolveOptions.js'
import { staticStreamData, videoObjectData } from '../stream/refreshStreamData.js'
import { statusFromVideoObject } from '../stream/statusMachine.js'
import type { StreamHostData } from '../types.js'
import { createVideo, deleteVideo, getVideo, listVideos, type StreamVideo, uploadVideoFile } from '../upstream/streamApi.js'
import { SKIP_UPLOAD_HOOKS } from '../wiring/uploadHooks.js'
import type { LocalCopy } from './fileSources.js'
import type { MigrateInput, MigrateResult } from './migrateFiles.js'

export type MigrateVideosInput = MigrateInput<ResolvedCollection & { stream: ResolvedStream }>

type StoredVideoDoc = {
  id: number | string
  filename?: unknown
  prefix?: unknown
  _objectKey?: unknown
  hostData?: { stream?: StreamHostData | null } | null
}

const VIDEO_CREATED = 0
const text = (value: unknown): string => (typeof value === 'string' ? value : '')
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

/** The title that ties a library's video to the document it was made for. */
export const migratedVideoTitle = (slug: string, doc: { id: number | string; filename?: unknown }) => `${text(doc.filename)} [${slug} ${doc.id}]`

/** Every video of the library by title: an earlier run's videos, found again. */
async function videosByTitle(stream: ResolvedStream): Promise<Map<string, StreamVideo>> {
  const byTitle = new Map<string, StreamVideo>()
  for (let page = 1; ; page++) {
    const { items, totalItems, itemsPerPage } = await listVideos(stream, page, 1000)
    for (const video of items) if (video.title) byTitle.set(video.title, video)
    if (items.length === 0 || page * itemsPerPage >= totalItems) return byTitle
  }
}

export async function migrateVideos(input: MigrateVideosInput): Promise<MigrateResult> {
  const { collection, payload, source, dryRun, log } = input
  const stream = collection.stream
  const result: MigrateResult = { alreadyThere: 0, bytesUploaded: 0, documents: 0, failures: [], rewritten: 0, uploaded: 0 }
  const fail = (doc: StoredVideoDoc, why: string) => {
    const line = `document ${doc.id}: "${text(doc.filename)}" ${why}`
    result.failures.push(line)
    log(`  failed: ${line}`)
  }
  const { totalDocs } = await payload.db.count({ collection: collection.slug, where: {} } as never)
  log(`${dryRun ? 'dry run: ' : ''}moving ${totalDocs} video document(s) of "${collection.slug}" from ${source.label} to video library ${stream.libraryId}`)
  const earlier = await videosByTitle(stream)

  for (let page = 1; ; page++) {
    const found = await payload.db.find<StoredVideoDoc>({ collection: collection.slug, limit: input.pageSize ?? 50, page, pagination: true, sort: 'id' })
    for (const doc of found.docs) {
      result.documents++
      const progress = `[${result.documents}/${totalDocs}] document ${doc.id} "${text(doc.filename)}"`
      if (doc.hostData?.stream?.videoId) {
        result.alreadyThere++
        log(`${progress}: already bound to video ${doc.hostData.stream.videoId}`)
        continue
      }
      if (!text(doc.filename)) {
        fail(doc, 'has no file name: nothing to move')
        continue
      }
      let local: LocalCopy | undefined
      try {
        local = await source.fetch({ folder: documentFolder(doc), name: text(doc.filename) })
      } catch (err) {
        fail(doc, `could not be read from ${source.label}: ${(err as Error).message}`)
        continue
      }
      if (!local) {
        fail(doc, `is not in ${source.label}`)
        continue
      }
      try {
        const title = migratedVideoTitle(collection.slug, doc)
        let video = earlier.get(title)
        // A video an earlier run left: kept when it holds the whole file or none of it yet, else made anew.
        const holdsFile = video !== undefined && video.status !== VIDEO_CREATED && video.status < 5 && (video.storageSize ?? 0) === local.size
        if (video && !holdsFile && video.status !== VIDEO_CREATED) {
          if (!dryRun) await deleteVideo(stream, video.guid)
          video = undefined
        }
        if (dryRun) {
          log(`${progress}: would ${holdsFile ? 'bind the video already in the library' : `upload ${mib(local.size)}`}`)
          continue
        }
        video ??= await createVideo(stream, title, stream.thumbnailTime)
        if (!holdsFile) {
          await uploadVideoFile(stream, video.guid, local)
          result.uploaded++
          result.bytesUploaded += local.size
        } else result.alreadyThere++
        const now = await getVideo(stream, video.guid)
        if (now.storageSize && now.storageSize !== local.size) {
          fail(doc, `is in the library as ${now.storageSize} bytes after its upload, not ${local.size}`)
          continue
        }
        const bound: StreamHostData = {
          ...staticStreamData(stream, video.guid),
          ...videoObjectData(now),
          status: statusFromVideoObject(now.status),
          videoToken: null,
        }
        await payload.update({
          collection: collection.slug,
          context: { [INTERNAL_UPDATE_CONTEXT]: true, [SKIP_UPLOAD_HOOKS]: true },
          data: { hostData: { stream: bound } },
          depth: 0,
          id: doc.id,
          overrideAccess: true,
        })
        result.rewritten++
        log(`${progress}: ${holdsFile ? 'bound to the video an earlier run uploaded' : `uploaded (${mib(local.size)})`} as video ${video.guid}`)
      } catch (err) {
        fail(doc, `could not be moved: ${(err as Error).message}`)
      } finally {
        await local.release()
      }
    }
    if (!found.hasNextPage) break
  }
  log(
    `${dryRun ? 'dry run: ' : ''}${result.documents} document(s): ${result.uploaded} video(s) uploaded (${mib(result.bytesUploaded)}), ` +
      `${result.alreadyThere} already in the library, ${result.rewritten} document(s) bound, ${result.failures.length} failed`,
  )
  return result
}
