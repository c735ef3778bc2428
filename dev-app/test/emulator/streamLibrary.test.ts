/**
 * The stream API's library calls a backup and a restore of a library need: `PUT` upload of the bytes,
 * the "Keep original files" setting (`original` served or 404, `hasOriginal`), captions (added through
 * the API, served by the pull zone), chapters and collections, and a paged, date-ordered listing.
 */
import { expect } from 'chai'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { fakeMp4 } from './helpers/fakeMp4.js'

describe('emulator: stream library (upload, originals, captions, chapters, collections, paging)', function () {
  this.timeout(30_000)
  let emulator: RunningEmulator
  let api: string
  const headers = { AccessKey: 'lib-key', 'Content-Type': 'application/json' }

  before(async () => {
    emulator = await startEmulator({ stream: { libraryId: 77, apiKey: 'lib-key', encodingStepMs: 5 } })
    api = `${emulator.stream.apiBase}/library/77`
  })
  after(() => emulator.close())

  const create = async (title: string): Promise<string> => {
    const res = await fetch(`${api}/videos`, { method: 'POST', headers, body: JSON.stringify({ title }) })
    expect(res.status).to.equal(200)
    return ((await res.json()) as { guid: string }).guid
  }
  const upload = (guid: string, body: Buffer) =>
    fetch(`${api}/videos/${guid}`, { method: 'PUT', headers: { AccessKey: 'lib-key' }, body: new Uint8Array(body) })
  const video = async (guid: string) => (await (await fetch(`${api}/videos/${guid}`, { headers })).json()) as Record<string, unknown>
  const cdn = (guid: string, file: string) => fetch(`${emulator.stream.cdnUrl}/${guid}/${file}`)

  it('PUT uploads the bytes of a created video once; the original is served and encoding runs', async () => {
    const guid = await create('Put upload')
    const bytes = fakeMp4({ width: 1280, height: 720 })
    const res = await upload(guid, bytes)
    expect(res.status).to.equal(200)
    expect((await upload(guid, bytes)).status, 'a second upload').to.equal(400)
    const encoded = await emulator.whenEncoded(guid)
    expect(encoded.status).to.equal(4)
    expect(await video(guid)).to.include({ hasOriginal: true, storageSize: bytes.length })
    expect(Buffer.from(await (await cdn(guid, 'original')).arrayBuffer()).equals(bytes)).to.equal(true)
    expect((await fetch(`${api}/videos/not-a-video`, { method: 'PUT', headers, body: 'x' })).status).to.equal(404)
    expect((await fetch(`${api}/videos/${guid}`, { method: 'PUT', headers: { AccessKey: 'wrong' }, body: 'x' })).status).to.equal(401)
  })

  it('without "Keep original files" the original is 404 and hasOriginal false; the MP4 renditions stay', async () => {
    emulator.setKeepOriginals(false)
    try {
      const guid = await create('No original')
      expect((await upload(guid, fakeMp4({ width: 1280, height: 720 }))).status).to.equal(200)
      await emulator.whenEncoded(guid)
      expect(await video(guid)).to.include({ hasOriginal: false, hasMP4Fallback: true })
      expect((await cdn(guid, 'original')).status).to.equal(404)
      const resolutions = (await (await fetch(`${api}/videos/${guid}/resolutions`, { headers })).json()) as {
        data: { hasOriginal: boolean; mp4Resolutions: { resolution: string; path: string }[] }
      }
      expect(resolutions.data.hasOriginal).to.equal(false)
      expect(resolutions.data.mp4Resolutions.map((r) => r.path)).to.include('play_720p.mp4')
      expect((await cdn(guid, 'play_720p.mp4')).status).to.equal(200)
    } finally {
      emulator.setKeepOriginals(true)
    }
  })

  it('captions are added (base64), listed on the video, served as VTT and deleted', async () => {
    const guid = await create('Captions')
    await upload(guid, fakeMp4({ width: 640, height: 360 }))
    const vtt = 'WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n'
    const add = await fetch(`${api}/videos/${guid}/captions/en`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ srclang: 'en', label: 'English', captionsFile: Buffer.from(vtt).toString('base64') }),
    })
    expect(add.status).to.equal(200)
    expect((await video(guid)).captions).to.deep.equal([{ srclang: 'en', label: 'English' }])
    const served = await cdn(guid, 'captions/en.vtt')
    expect(served.status).to.equal(200)
    expect(await served.text()).to.equal(vtt)
    expect((await fetch(`${api}/videos/${guid}/captions/${encodeURIComponent('../x')}`, { method: 'POST', headers, body: '{}' })).status).to.equal(400)
    expect((await fetch(`${api}/videos/${guid}/captions/en`, { method: 'DELETE', headers })).status).to.equal(200)
    expect((await video(guid)).captions).to.deep.equal([])
    expect((await cdn(guid, 'captions/en.vtt')).status).to.equal(404)
  })

  it('collections are created, listed and set on a video with its chapters; an unknown collection is refused', async () => {
    const made = await fetch(`${api}/collections`, { method: 'POST', headers, body: JSON.stringify({ name: 'Trailers' }) })
    expect(made.status).to.equal(200)
    const collection = (await made.json()) as { guid: string; name: string; videoCount: number }
    expect(collection).to.include({ name: 'Trailers', videoCount: 0 })
    const guid = await create('In a collection')
    const chapters = [{ title: 'Intro', start: 0, end: 5 }]
    const set = await fetch(`${api}/videos/${guid}`, { method: 'POST', headers, body: JSON.stringify({ collectionId: collection.guid, chapters }) })
    expect(set.status).to.equal(200)
    expect(await video(guid)).to.deep.include({ collectionId: collection.guid, chapters })
    const list = (await (await fetch(`${api}/collections?page=1&itemsPerPage=10`, { headers })).json()) as { items: { guid: string; videoCount: number }[] }
    expect(list.items.find((c) => c.guid === collection.guid)?.videoCount).to.equal(1)
    const inCollection = (await (await fetch(`${api}/videos?collection=${collection.guid}`, { headers })).json()) as { items: { guid: string }[] }
    expect(inCollection.items.map((v) => v.guid)).to.deep.equal([guid])
    const bad = await fetch(`${api}/videos/${guid}`, { method: 'POST', headers, body: JSON.stringify({ collectionId: 'no-such-collection', title: 'x' }) })
    expect(bad.status).to.equal(400)
    expect((await video(guid)).title, 'nothing of a refused update applied').to.equal('In a collection')
  })

  it('lists page by page, newest first, each video once', async () => {
    for (let i = 0; i < 7; i++) await create(`Paged ${i}`)
    const total = emulator.videos().length
    const seen: string[] = []
    for (let page = 1; ; page++) {
      const body = (await (await fetch(`${api}/videos?page=${page}&itemsPerPage=3&orderBy=date`, { headers })).json()) as {
        totalItems: number
        items: { guid: string; dateUploaded: string }[]
      }
      expect(body.totalItems).to.equal(total)
      if (body.items.length === 0) break
      seen.push(...body.items.map((item) => item.guid))
    }
    expect(seen).to.have.length(total)
    expect(new Set(seen).size).to.equal(total)
  })
})
