/**
 * Every row of the spec's tus-auth error table (plugin-storage-api.md, "Errors"), each answered with the
 * error body `{errors: [{message}]}`, plus the upstream-failure rows: a 500 from the stream API (through a real
 * proxy, after the host created the video) answers 500 without details, and the orphan sweep removes that video.
 */
import { expect } from 'chai'
import { type RunningEmulator } from 'dev-app/emulator'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import nock from 'nock'

import { resolveOptions, sweepOrphanVideos } from '../src/index.js'

import { headOf, mp4Bytes, pngBytes } from './support/media.js'
import { closeCmsAndEmulator, startCmsOnEmulator } from './support/cmsOnEmulator.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'
import { tusAuth, validTusRequest } from './support/api.js'

const LIMIT = 10 * 1024 * 1024

describe('tus-auth error table', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  const video = mp4Bytes(32 * 1024)
  const ok = validTusRequest(video)

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator((started) => startCms(emulatorOptions(started), { fileSizeLimit: LIMIT })))
  })
  after(async () => {
    nock.cleanAll()
    await closeCmsAndEmulator(cms, emu)
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
    await expectError({ ...ok, filesize: 0 }, 400, /^The file is empty\.$/)
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
  it('500 without details when the stream API fails after creating the video; the sweep removes what it left', async () => {
    // A real proxy in front of the emulator's stream API: the create call reaches the host (the video exists
    // there), but its answer is replaced by a 500 on the way back, as when the host fails after the write.
    const created: string[] = []
    const proxy: Server = createServer((req, res) => {
      const upstream = httpRequest(`${emu.url}${req.url}`, { headers: req.headers, method: req.method }, (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          if (req.method === 'POST' && /\/videos$/.test(req.url ?? '')) {
            created.push((JSON.parse(Buffer.concat(chunks).toString()) as { guid: string }).guid)
            res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ Message: `internal failure, key=${emu.stream.apiKey}` }))
            return
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks))
        })
      })
      req.pipe(upstream)
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    const options = emulatorOptions(emu)
    const faultyOptions = { ...options, stream: { ...options.stream!, apiBase: emu.stream.apiBase.replace(emu.url, proxyUrl) } }
    const faulty = await startCms(faultyOptions, { fileSizeLimit: LIMIT })
    try {
      const res = await tusAuth(faulty, ok)
      const text = await res.text()
      expect(res.status).to.equal(500)
      expect(JSON.parse(text)).to.deep.equal({ errors: [{ message: 'Something went wrong on the upstream host. Please try again later.' }] })
      expect(text).not.to.include(emu.stream.apiKey)
      expect(text).not.to.include('internal failure')
      // The host did create the video: the CMS never learnt its id, so only the sweep can remove it.
      expect(created).to.have.length(1)
      expect(emu.videos().map((v) => v.guid)).to.include(created[0])
      const removed = await sweepOrphanVideos(faulty.payload, resolveOptions(faultyOptions), { now: Date.now() + 26 * 60 * 60 * 1000 })
      expect(removed).to.include(created[0])
      expect(emu.videos().map((v) => v.guid)).not.to.include(created[0])
    } finally {
      await faulty.close()
      proxy.closeAllConnections()
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    }
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
