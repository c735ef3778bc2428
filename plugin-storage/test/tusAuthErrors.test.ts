/**
 * Every row of the spec's tus-auth error table (plugin-storage-api.md, "Errors"), each answered with the
 * error body `{errors: [{message}]}`, plus the upstream-failure row: a 500 from the stream API answers
 * 500 without details and leaves no video behind.
 */
import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'
import nock from 'nock'

import { headOf, mp4Bytes, pngBytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'
import { tusAuth } from './support/api.js'

const LIMIT = 10 * 1024 * 1024

describe('tus-auth error table', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  const video = mp4Bytes(32 * 1024)
  const ok = { collection: 'videos', filename: 'clip.mp4', filesize: video.length, filetype: 'video/mp4', head: headOf(video), title: 'Clip' }

  before(async () => {
    emu = await startEmulator()
    cms = await startCms(emulatorOptions(emu), { fileSizeLimit: LIMIT })
  })
  after(async () => {
    nock.cleanAll()
    await cms?.close()
    await emu?.close()
  })

  async function expectError(body: Record<string, unknown>, status: number, message: RegExp, auth?: string): Promise<void> {
    const res = await tusAuth(cms, body, auth)
    const json = (await res.json()) as { errors?: Array<{ message: string }> }
    expect(res.status, JSON.stringify(json)).to.equal(status)
    expect(json.errors).to.have.length(1)
    expect(json.errors![0]!.message).to.match(message)
  }

  it('accepts the valid request the rows below vary', async () => {
    expect((await tusAuth(cms, ok)).status).to.equal(200)
  })

  for (const field of ['collection', 'filename', 'filesize', 'filetype']) {
    it(`400 when ${field} is missing`, async () => {
      const body: Record<string, unknown> = { ...ok }
      delete body[field]
      await expectError(body, 400, new RegExp(`Missing required fields: ${field}`))
    })
  }
  it('400 for a body that is not JSON', async () => {
    const res = await cms.fetch('/api/storage-host/stream/tus-auth', { body: '{nope', headers: { 'Content-Type': 'application/json' }, method: 'POST' })
    expect(res.status).to.equal(400)
    expect(((await res.json()) as { errors: unknown[] }).errors).to.have.length(1)
  })
  it('400 for an invalid file name', () => expectError({ ...ok, filename: '../../' }, 400, /Invalid file name/))
  it('400 for a file name of dots only', () => expectError({ ...ok, filename: '...' }, 400, /Invalid file name/))
  it('400 for an invalid MIME type', () => expectError({ ...ok, filetype: 'not a mime' }, 400, /Invalid MIME type/))
  it('400 for an invalid size (negative, fractional, zero)', async () => {
    await expectError({ ...ok, filesize: -5 }, 400, /Invalid file size/)
    await expectError({ ...ok, filesize: 1.5 }, 400, /Invalid file size/)
    await expectError({ ...ok, filesize: 0 }, 400, /Invalid file size/)
  })
  it('400 for a size that is not a number', () => expectError({ ...ok, filesize: '12' }, 400, /must be a number/))
  it('400 for a head over 8192 characters', () => expectError({ ...ok, head: 'A'.repeat(8196) }, 400, /1 to 8192/))
  it('400 for a head that is not base64', () => expectError({ ...ok, head: '!!!!' }, 400, /not valid base64/))
  it('400 for SVG (by type, by name, by content)', async () => {
    await expectError({ ...ok, filetype: 'image/svg+xml' }, 400, /SVG and XML/)
    await expectError({ ...ok, filename: 'x.svg' }, 400, /SVG and XML/)
    await expectError({ ...ok, head: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>').toString('base64') }, 400, /SVG and XML/)
  })
  it('400 for XML', async () => {
    await expectError({ ...ok, filetype: 'application/xml' }, 400, /SVG and XML/)
    await expectError({ ...ok, head: Buffer.from('<?xml version="1.0"?><a/>').toString('base64') }, 400, /SVG and XML/)
  })
  it('400 when a new video has no title', async () => {
    await expectError({ ...ok, title: undefined }, 400, /title is required/)
    await expectError({ ...ok, title: '   ' }, 400, /title is required/)
    // A videoId without its token does not resume: it is a new video, so the title is required.
    await expectError({ ...ok, title: undefined, videoId: 'abc' }, 400, /title is required/)
  })
  it('400 when TUS is not enabled for the collection', async () => {
    await expectError({ ...ok, collection: 'media' }, 400, /not enabled/)
    await expectError({ ...ok, collection: 'plain-files' }, 400, /not enabled/)
    await expectError({ ...ok, collection: 'posts' }, 400, /not enabled/)
  })
  it('403 without a session', async () => {
    await expectError(ok, 403, /authenticated session/, 'not-a-token')
    const res = await cms.fetch('/api/storage-host/stream/tus-auth', {
      auth: false,
      body: JSON.stringify(ok),
      headers: { 'Content-Type': 'application/json' },
      method: 'POST',
    })
    expect(res.status).to.equal(403)
  })
  it('403 when the collection access denies create and update', () => expectError({ ...ok, collection: 'locked-videos' }, 403, /not allowed/))
  it('404 for an unknown collection', () => expectError({ ...ok, collection: 'nope' }, 404, /not found/))
  it('413 over upload.limits.fileSize', () => expectError({ ...ok, filesize: LIMIT + 1 }, 413, /maximum size/))
  it('415 for a restricted type', () => expectError({ ...ok, filename: 'setup.exe', filetype: 'video/mp4' }, 415, /restricted/))
  it('415 for a type the stream options do not accept', () =>
    expectError({ ...ok, filetype: 'image/png', head: undefined }, 415, /streaming host does not accept/))
  it("415 for a type the collection's mimeTypes do not accept", () =>
    expectError({ ...ok, filename: 'clip.ogv', filetype: 'video/ogg', head: undefined }, 415, /collection does not accept/))
  it('415 when the sniffed head contradicts filetype', async () => {
    const png = await pngBytes(8, 8)
    await expectError({ ...ok, head: headOf(png) }, 415, /does not match the declared type video\/mp4/)
  })
  it('500 without details when the stream API fails, and nothing is left behind', async () => {
    const before = emu.videos().length
    nock(emu.url, { allowUnmocked: true })
      .post(/\/stream\/library\/\d+\/videos$/)
      .reply(500, { Message: `internal failure, key=${emu.stream.apiKey}` })
    const res = await tusAuth(cms, ok)
    const text = await res.text()
    expect(res.status).to.equal(500)
    expect(JSON.parse(text)).to.deep.equal({ errors: [{ message: 'Something went wrong on the upstream host. Please try again later.' }] })
    expect(text).not.to.include(emu.stream.apiKey)
    expect(text).not.to.include('internal failure')
    expect(emu.videos().length).to.equal(before)
    nock.cleanAll()
  })
  it('500 without details when the host cannot be reached on resume', async () => {
    const first = (await (await tusAuth(cms, ok)).json()) as { videoId: string; videoToken: string }
    nock(emu.url, { allowUnmocked: true })
      .get(new RegExp(`/videos/${first.videoId}$`))
      .replyWithError('ECONNRESET')
    await expectError({ ...ok, videoId: first.videoId, videoToken: first.videoToken }, 500, /^Something went wrong/)
    nock.cleanAll()
  })
})
