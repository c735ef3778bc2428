/**
 * `remapStreamVideos`, the CMS-aware step of a site restore: documents bound to videos (through the real
 * tus-auth and save flow) are moved, through Payload's local API, to new videos of the library (as the
 * backup daemon's `restore --into-library` makes them, with a GUID map): video id, library id, playlist,
 * thumbnail and rendition URLs point at the new video, and its status and renditions come from the host
 * (the new thumbnail is served). A document whose video is not in the map is left as it was, a map entry
 * no document holds is reported, and the moved document answers the new video's completion callback.
 */
import { expect } from 'chai'
import { webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import { remapStreamVideos, resolveOptions } from '../src/index.js'
import type { StreamHostData, TusAuthResponse } from '../src/types.js'
import { saveVideo, tusAuth } from './support/api.js'
import { headOf, mp4Bytes } from './support/media.js'
import { closeCmsAndEmulator, startCmsOnEmulator } from './support/cmsOnEmulator.js'
import { emulatorOptions, type RunningCms } from './support/startCms.js'

describe('remapStreamVideos (documents moved to restored videos)', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  const video = mp4Bytes(16 * 1024)

  const create = async (name: string) => {
    const request = { collection: 'videos', filename: name, filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: name }
    const auth = (await (await tusAuth(cms, request)).json()) as TusAuthResponse
    const saved = await saveVideo(cms, { filename: auth.filename!, signedReceipt: auth.signedReceipt, size: video.length, videoToken: auth.videoToken })
    expect(saved.status).to.equal(201)
    return { id: ((await saved.json()) as { doc: { id: number } }).doc.id, videoId: auth.videoId! }
  }
  const streamOf = async (id: number) =>
    ((await cms.payload.findByID({ collection: 'videos', id, depth: 0 })) as unknown as { hostData: { stream: StreamHostData } }).hostData.stream
  /** A video as the daemon's restore makes it: created, its bytes uploaded, encoded. */
  const restoredVideo = async (title: string) => {
    const base = `${emu.stream.apiBase}/library/${emu.stream.libraryId}`
    const headers = { AccessKey: emu.stream.apiKey }
    const created = (await (
      await fetch(`${base}/videos`, { body: JSON.stringify({ title }), headers: { ...headers, 'Content-Type': 'application/json' }, method: 'POST' })
    ).json()) as {
      guid: string
    }
    expect((await fetch(`${base}/videos/${created.guid}`, { body: new Uint8Array(video), headers, method: 'PUT' })).ok).to.equal(true)
    await emu.whenEncoded(created.guid)
    return created.guid
  }

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator())
  })
  after(async () => {
    await closeCmsAndEmulator(cms, emu)
  })

  it('rewrites the mapped documents to the new videos and leaves the others alone', async () => {
    const moved = await create('moved.mp4')
    const kept = await create('kept.mp4')
    const keptBefore = await streamOf(kept.id)
    // The restored database still holds renditions of the old video.
    await cms.payload.update({
      collection: 'videos',
      context: { storageHostInternalUpdate: true },
      data: {
        hostData: {
          stream: { ...(await streamOf(moved.id)), resolutions: [{ resolution: '720p', url: `${emu.stream.cdnUrl}/${moved.videoId}/play_720p.mp4` }] },
        },
      },
      id: moved.id,
    })
    const newGuid = await restoredVideo('moved.mp4')

    const result = await remapStreamVideos(cms.payload, resolveOptions(emulatorOptions(emu)), {
      guidMap: { [moved.videoId]: newGuid, '00000000-0000-4000-8000-000000000000': 'ffffffff-0000-4000-8000-000000000000' },
    })

    expect(result.updated).to.deep.equal([{ collection: 'videos', id: moved.id, from: moved.videoId, to: newGuid }])
    expect(result.unused).to.deep.equal(['00000000-0000-4000-8000-000000000000'])
    const after = await streamOf(moved.id)
    expect(after).to.deep.include({
      videoId: newGuid,
      libraryId: emu.stream.libraryId,
      playlistUrl: `${emu.stream.cdnUrl}/${newGuid}/playlist.m3u8`,
      thumbnailUrl: `${emu.stream.cdnUrl}/${newGuid}/thumbnail.jpg`,
      status: 'finished',
    })
    expect(JSON.stringify(after)).to.not.include(moved.videoId)
    expect(after.resolutions!.length).to.be.greaterThan(0)
    for (const r of after.resolutions!) expect(r.url.startsWith(`${emu.stream.cdnUrl}/${newGuid}/`), r.url).to.equal(true)
    const thumbnail = await fetch(after.thumbnailUrl!)
    expect(thumbnail.status).to.equal(200)
    expect(thumbnail.headers.get('content-type')).to.match(/^image\//)
    expect(await streamOf(kept.id)).to.deep.equal(keptBefore)
  })

  it('the moved document answers the new video’s completion callback', async () => {
    const doc = await create('late.mp4')
    const base = `${emu.stream.apiBase}/library/${emu.stream.libraryId}`
    const created = (await (
      await fetch(`${base}/videos`, {
        body: JSON.stringify({ title: 'late' }),
        headers: { AccessKey: emu.stream.apiKey, 'Content-Type': 'application/json' },
        method: 'POST',
      })
    ).json()) as { guid: string }
    // Not uploaded yet: the remap finds it waiting for its bytes.
    await remapStreamVideos(cms.payload, resolveOptions(emulatorOptions(emu)), { guidMap: { [doc.videoId]: created.guid } })
    expect((await streamOf(doc.id)).videoId).to.equal(created.guid)
    expect((await streamOf(doc.id)).status).to.not.equal('finished')
    const raw = JSON.stringify({ Status: 5, VideoGuid: created.guid, VideoLibraryId: emu.stream.libraryId })
    const headers = { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) }
    expect((await fetch(`${cms.url}/api${WEBHOOK_PATH}`, { body: raw, headers, method: 'POST' })).status).to.equal(200)
    expect((await streamOf(doc.id)).status).to.equal('failed')
  })
})
