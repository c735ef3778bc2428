/**
 * URLs computed when a document is read: documents store ids, object keys and rendition file names; every
 * URL a reader sees comes from the options in force. A site moved to other ports (the same emulator data
 * on another port, as `restore-site` does) and a changed CDN hostname answer URLs that load, without a
 * write. Documents of the old form (absolute URLs on the old port) are rewritten by the migration, run
 * through Payload's own `migrate`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { storageHostUrlsAtReadTime } from '../src/index.js'
import { WEBHOOK_PATH } from '../src/constants.js'
import type { StorageHostPluginOptions } from '../src/types.js'
import { multipart } from './support/api.js'
import { uploadFinishedVideo } from './support/finishedVideo.js'
import { pngBytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

type Stream = { videoId: string; playlistUrl: string | null; thumbnailUrl: string | null; resolutions: Array<{ resolution: string; url: string }> }
type VideoDoc = { id: number; hostData: { stream: Stream } }
type ImageDoc = { id: number; filename: string; url: string; sizes: { thumbnail: { url: string; filename: string } } }

/** Public image URLs (on the pull zone), so every URL of both kinds is a host URL. */
const publicOptions = (emu: RunningEmulator, cdnHost?: string): StorageHostPluginOptions => {
  const base = emulatorOptions(emu)
  const cdn = (url: string) => (cdnHost ? url.replace('127.0.0.1', cdnHost) : url)
  return {
    ...base,
    storage: { ...base.storage!, cdnUrl: cdn(emu.storage.cdnUrl), publicUrls: true },
    stream: { ...base.stream!, cdnUrl: cdn(emu.stream.cdnUrl) },
  }
}

const loads = async (url: string) => (await fetch(url)).status

describe('URLs computed when a document is read', function () {
  this.timeout(120_000)
  let hostDir: string
  let cmsDir: string
  const secret = 'urls-at-read-time-secret'
  let emu: RunningEmulator
  let cms: RunningCms
  let video: { docId: number; videoId: string }
  let image: ImageDoc

  const read = async <T>(target: RunningCms, path: string) => (await (await target.fetch(path)).json()) as T
  const stored = <T>(target: RunningCms, collection: 'media' | 'videos', id: number) =>
    target.payload.db.findOne({ collection, req: {}, where: { id: { equals: id } } }) as Promise<T>

  before(async () => {
    hostDir = await mkdtemp(join(tmpdir(), 'urls-at-read-host-'))
    cmsDir = await mkdtemp(join(tmpdir(), 'urls-at-read-cms-'))
    emu = await startEmulator({ dataDir: hostDir, stream: { encodingStepMs: 10 } })
    cms = await startCms(publicOptions(emu), { dataDir: cmsDir, secret })
    emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
    video = await uploadFinishedVideo(cms, emu, 'moved')
    const created = await cms.fetch('/api/media', { body: multipart(await pngBytes(90, 60), 'moved.png', 'image/png'), method: 'POST' })
    expect(created.status).to.equal(201)
    image = ((await created.json()) as { doc: ImageDoc }).doc
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
    await Promise.all([rm(hostDir, { force: true, recursive: true }), rm(cmsDir, { force: true, recursive: true })])
  })

  it('stores the video id and rendition file names, and no host URL', async () => {
    const raw = await stored<VideoDoc>(cms, 'videos', video.docId)
    expect(raw.hostData.stream.videoId).to.equal(video.videoId)
    expect(raw.hostData.stream.playlistUrl).to.equal(null)
    expect(raw.hostData.stream.thumbnailUrl).to.equal(null)
    expect(raw.hostData.stream.resolutions.length).to.be.greaterThan(0)
    for (const r of raw.hostData.stream.resolutions) expect(r.url).to.match(/^play_\d+p\.mp4$/)
    const rawImage = await stored<ImageDoc & { url: string | null }>(cms, 'media', image.id)
    expect(rawImage.url ?? '', 'no pull-zone URL stored').not.to.include(emu.url)
    // Read, the same documents carry URLs that load.
    const doc = await read<VideoDoc>(cms, `/api/videos/${video.docId}`)
    expect(doc.hostData.stream.playlistUrl).to.equal(`${emu.stream.cdnUrl}/${video.videoId}/playlist.m3u8`)
    expect(await loads(doc.hostData.stream.playlistUrl!)).to.equal(200)
    expect(await loads(doc.hostData.stream.resolutions[0]!.url)).to.equal(200)
    expect(await loads(image.url)).to.equal(200)
  })

  it('answers working URLs after the site moves to other ports and another CDN hostname, with no write', async () => {
    const oldUrl = emu.url
    await cms.close()
    await emu.close()
    // The same host data on another port (restore-site's case), and the CDN under another hostname.
    emu = await startEmulator({ dataDir: hostDir, stream: { encodingStepMs: 10 } })
    expect(emu.url).not.to.equal(oldUrl)
    cms = await startCms(publicOptions(emu, 'localhost'), { dataDir: cmsDir, secret })
    const newStreamCdn = emu.stream.cdnUrl.replace('127.0.0.1', 'localhost')
    const newStorageCdn = emu.storage.cdnUrl.replace('127.0.0.1', 'localhost')

    const doc = await read<VideoDoc & { thumbnailURL: string }>(cms, `/api/videos/${video.docId}`)
    const s = doc.hostData.stream
    for (const url of [s.playlistUrl!, s.thumbnailUrl!, doc.thumbnailURL, ...s.resolutions.map((r) => r.url)]) {
      expect(url.startsWith(`${newStreamCdn}/${video.videoId}/`), url).to.equal(true)
      expect(await loads(url), url).to.equal(200)
    }
    const playback = await read<{ hls: string; mp4: Array<{ url: string }> }>(cms, `/api/videos/${video.docId}/playback`)
    expect(playback.hls.startsWith(newStreamCdn)).to.equal(true)
    const img = await read<ImageDoc & { thumbnailURL: string }>(cms, `/api/media/${image.id}`)
    for (const url of [img.url, img.sizes.thumbnail.url]) {
      expect(url.startsWith(`${newStorageCdn}/`), url).to.equal(true)
      expect(await loads(url), url).to.equal(200)
    }
  })

  it("rewrites documents of the old form through Payload's migrate; they then read the same way", async () => {
    // A document as the plugin stored it before: absolute URLs on a host that is gone.
    const gone = 'http://127.0.0.1:9/stream-cdn/1001'
    await cms.payload.db.updateOne({
      collection: 'videos',
      data: {
        hostData: {
          stream: {
            ...(await stored<VideoDoc>(cms, 'videos', video.docId)).hostData.stream,
            playlistUrl: `${gone}/${video.videoId}/playlist.m3u8`,
            resolutions: [{ id: '66f1c0ffee00000000000001', resolution: '360p', url: `${gone}/${video.videoId}/play_360p.mp4` }],
            thumbnailUrl: `${gone}/${video.videoId}/thumbnail.jpg`,
          },
        },
      },
      id: video.docId,
      req: {},
    })
    await cms.payload.db.updateOne({ collection: 'media', data: { url: `http://127.0.0.1:9/cdn/dev-zone/${image.filename}` }, id: image.id, req: {} })
    // The development push leaves its own marker, which makes `migrate` ask before running: gone, as in production.
    await cms.payload.delete({ collection: 'payload-migrations', overrideAccess: true, where: { batch: { equals: -1 } } })
    await cms.payload.db.migrate({ migrations: [storageHostUrlsAtReadTime] })

    const raw = await stored<VideoDoc>(cms, 'videos', video.docId)
    expect(raw.hostData.stream.playlistUrl).to.equal(null)
    expect(raw.hostData.stream.thumbnailUrl).to.equal(null)
    expect(raw.hostData.stream.resolutions.map(({ resolution, url }) => ({ resolution, url }))).to.deep.equal([{ resolution: '360p', url: 'play_360p.mp4' }])
    const rawImage = await stored<{ url: string | null }>(cms, 'media', image.id)
    expect(rawImage.url ?? '').not.to.include('127.0.0.1:9')
    const ran = await cms.payload.find({ collection: 'payload-migrations', where: { name: { equals: storageHostUrlsAtReadTime.name } } })
    expect(ran.totalDocs, 'recorded as run').to.equal(1)
    const doc = await read<VideoDoc>(cms, `/api/videos/${video.docId}`)
    expect(await loads(doc.hostData.stream.resolutions[0]!.url)).to.equal(200)
  })
})
