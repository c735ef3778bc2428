import { expect } from 'chai'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'

describe('emulator: stream API', () => {
  let emulator: RunningEmulator
  let videosUrl: string
  let headers: Record<string, string>

  before(async () => {
    emulator = await startEmulator({ stream: { libraryId: 4242, apiKey: 'library-key' } })
    videosUrl = `${emulator.stream.apiBase}/library/4242/videos`
    headers = { AccessKey: 'library-key', 'Content-Type': 'application/json' }
  })
  after(() => emulator.close())

  const create = async (body: unknown) => fetch(videosUrl, { method: 'POST', headers, body: JSON.stringify(body) })

  it('creates a video and returns the video object', async () => {
    const res = await create({ title: 'Launch film', thumbnailTime: 1500 })
    expect(res.status).to.equal(200)
    const video = (await res.json()) as Record<string, unknown>
    expect(video.guid).to.match(/^[0-9a-f-]{36}$/)
    expect(video).to.include({
      videoLibraryId: 4242,
      title: 'Launch film',
      status: 0,
      encodeProgress: 0,
      storageSize: 0,
      length: 0,
      width: 0,
      height: 0,
      hasMP4Fallback: false,
      thumbnailFileName: 'thumbnail.jpg',
    })
    expect(video).to.have.property('availableResolutions', null)
    expect(emulator.videos().map((v) => v.guid)).to.include(video.guid)
  })

  it('gets, updates, lists and deletes a video', async () => {
    const { guid } = (await (await create({ title: 'First title' })).json()) as { guid: string }
    const got = await fetch(`${videosUrl}/${guid}`, { headers })
    expect(got.status).to.equal(200)
    expect(((await got.json()) as { title: string }).title).to.equal('First title')

    const updated = await fetch(`${videosUrl}/${guid}`, { method: 'POST', headers, body: JSON.stringify({ title: 'Second title' }) })
    expect(updated.status).to.equal(200)
    expect(await updated.json()).to.deep.include({ success: true })
    expect(((await (await fetch(`${videosUrl}/${guid}`, { headers })).json()) as { title: string }).title).to.equal('Second title')

    const list = (await (await fetch(`${videosUrl}?page=1&itemsPerPage=100`, { headers })).json()) as { totalItems: number; items: { guid: string }[] }
    expect(list.items.map((item) => item.guid)).to.include(guid)
    expect(list.totalItems).to.equal(list.items.length)

    const deleted = await fetch(`${videosUrl}/${guid}`, { method: 'DELETE', headers })
    expect(deleted.status).to.equal(200)
    expect((await fetch(`${videosUrl}/${guid}`, { headers })).status).to.equal(404)
    expect((await fetch(`${videosUrl}/${guid}`, { method: 'DELETE', headers })).status).to.equal(404)
  })

  it('answers resolutions in the real shape (empty before encoding)', async () => {
    const { guid } = (await (await create({ title: 'Not yet uploaded' })).json()) as { guid: string }
    const res = await fetch(`${videosUrl}/${guid}/resolutions`, { headers })
    expect(res.status).to.equal(200)
    const body = (await res.json()) as { success: boolean; data: { mp4Resolutions: unknown[]; availableResolutions: unknown[]; videoId: string } }
    expect(body.success).to.equal(true)
    expect(body.data.videoId).to.equal(guid)
    expect(body.data.mp4Resolutions).to.deep.equal([])
    expect(body.data.availableResolutions).to.deep.equal([])
  })

  it('refuses a missing title with 400', async () => {
    expect((await create({})).status).to.equal(400)
    expect((await create({ title: '   ' })).status).to.equal(400)
    expect((await create({ title: 'ok', thumbnailTime: -1 })).status).to.equal(400)
  })

  it('refuses a missing or wrong AccessKey and another library with 401', async () => {
    const noKey = await fetch(videosUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'x' }) })
    expect(noKey.status).to.equal(401)
    const wrong = await fetch(videosUrl, { headers: { AccessKey: 'nope' } })
    expect(wrong.status).to.equal(401)
    const otherLibrary = await fetch(`${emulator.stream.apiBase}/library/1/videos`, { headers })
    expect(otherLibrary.status).to.equal(401)
    const text = JSON.stringify(await otherLibrary.json())
    expect(text).not.to.include('library-key')
  })

  it('answers 404 for an unknown video', async () => {
    expect((await fetch(`${videosUrl}/00000000-0000-0000-0000-000000000000`, { headers })).status).to.equal(404)
    expect((await fetch(`${videosUrl}/00000000-0000-0000-0000-000000000000/resolutions`, { headers })).status).to.equal(404)
  })
})
