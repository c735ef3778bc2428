/**
 * One set of file rules on every upload path (issue 24 item 5, issue 28 "Info" on tus-auth): a file sent
 * through the CMS (the admin's form upload, which Payload's admin uses for SVG instead of a client
 * upload), a client upload read back by the core, the client-upload signing and tus-auth refuse the same
 * files: SVG/XML (400), restricted types and names, also spelled with full-width letters (415), content
 * that is markup or not the declared kind of file (415). tus-auth bounds every field and its body.
 */
import { expect } from 'chai'
import { type RunningEmulator } from 'dev-app/emulator'

import { STORAGE_UPLOAD_PATH } from '../src/constants.js'
import { multipart, tusAuth, validTusRequest } from './support/api.js'
import { mp4Bytes, pngBytes } from './support/media.js'
import { closeCmsAndEmulator, startCmsOnEmulator } from './support/cmsOnEmulator.js'
import type { RunningCms } from './support/startCms.js'

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>')
const HTML = Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>')
/** UTF-16 (little endian, with a byte-order mark): `<?xml` is no longer at byte 0 as UTF-8 text. */
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])

interface Errors {
  errors: Array<{ message: string }>
}

describe('one set of file rules on every upload path', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  const video = mp4Bytes(32 * 1024)
  const ok = validTusRequest(video)

  before(async () => {
    ;({ emu, cms } = await startCmsOnEmulator())
  })
  after(async () => {
    await closeCmsAndEmulator(cms, emu)
  })

  const count = async () => (await cms.payload.count({ collection: 'media' })).totalDocs

  async function expectRefused(res: Response, status: number, message: RegExp): Promise<void> {
    const body = (await res.json()) as Errors
    expect(res.status, JSON.stringify(body)).to.equal(status)
    expect(body.errors[0]!.message).to.match(message)
  }

  describe('a file sent through the CMS (form upload)', () => {
    const upload = (bytes: Buffer, name: string, type: string) => cms.fetch('/api/media', { body: multipart(bytes, name, type, { alt: 'x' }), method: 'POST' })

    it('refuses SVG by type and name, and SVG content under a PNG name; nothing is stored', async () => {
      const before = await count()
      await expectRefused(await upload(SVG, 'logo.svg', 'image/svg+xml'), 400, /SVG and XML/)
      await expectRefused(await upload(SVG, 'logo.png', 'image/png'), 400, /SVG and XML/)
      await expectRefused(await upload(utf16(`<?xml version="1.0"?>${SVG.toString()}`), 'logo.png', 'image/png'), 400, /SVG and XML/)
      expect(await count()).to.equal(before)
      expect(emu.storedFilePath('logo.svg')).to.equal(undefined)
      expect(emu.storedFilePath('logo.png')).to.equal(undefined)
    })

    it('refuses HTML content, a restricted name in full-width letters, and "images" that are none (415)', async () => {
      const before = await count()
      await expectRefused(await upload(HTML, 'page.png', 'image/png'), 415, /HTML/)
      const png = await pngBytes(12, 12)
      await expectRefused(await upload(png, 'photo.ｈｔｍｌ', 'image/png'), 415, /restricted/)
      await expectRefused(await upload(Buffer.from('just some text, no image at all'), 'fake.png', 'image/png'), 415, /not a recognisable image/)
      expect(await count()).to.equal(before)
    })

    it('still takes a real image', async () => {
      const res = await upload(await pngBytes(12, 12), 'real.png', 'image/png')
      expect(res.status, await res.clone().text()).to.equal(201)
    })
  })

  describe('a client upload (signed PUT, then the document by receipt)', () => {
    const sign = (filename: string, mimeType: string, size: number) =>
      cms.fetch(`/api${STORAGE_UPLOAD_PATH}`, {
        body: JSON.stringify({ collectionSlug: 'media', filename, mimeType, size }),
        headers: { 'Content-Type': 'application/json' },
        method: 'POST',
      })

    it('signs no full-width restricted name (415)', async () => {
      await expectRefused(await sign('photo.ｈｔｍｌ', 'image/png', 100), 415, /restricted/)
      await expectRefused(await sign('logo.ｓｖｇ', 'image/png', 100), 400, /SVG and XML/)
    })

    it('refuses SVG or HTML bytes PUT under a signed image/png when the document is saved', async () => {
      for (const [bytes, status, message] of [
        [SVG, 400, /SVG and XML/],
        [HTML, 415, /HTML/],
      ] as const) {
        const signed = (await (await sign('innocent.png', 'image/png', bytes.length)).json()) as {
          url: string
          headers: Record<string, string>
          filename: string
          clientUploadContext: unknown
        }
        expect((await fetch(signed.url, { body: new Uint8Array(bytes), headers: signed.headers, method: 'PUT' })).status).to.equal(200)
        const form = new FormData()
        form.append(
          'file',
          JSON.stringify({ clientUploadContext: signed.clientUploadContext, filename: signed.filename, mimeType: 'image/png', size: bytes.length }),
        )
        form.append('_payload', JSON.stringify({ alt: 'x' }))
        const before = await count()
        await expectRefused(await cms.fetch('/api/media', { body: form, method: 'POST' }), status, message)
        expect(await count()).to.equal(before)
      }
    })
  })

  describe('tus-auth', () => {
    const expectTus = async (body: Record<string, unknown>, status: number, message: RegExp) => expectRefused(await tusAuth(cms, body), status, message)

    it('refuses a head that sniffs as nothing known, or as markup, for a declared video (415 / 400)', async () => {
      await expectTus({ ...ok, head: Buffer.from('plain text, certainly not a video').toString('base64') }, 415, /not a recognisable video/)
      await expectTus({ ...ok, head: HTML.toString('base64') }, 415, /HTML/)
      await expectTus({ ...ok, head: utf16(SVG.toString()).toString('base64') }, 400, /SVG and XML/)
      await expectTus({ ...ok, head: utf16('<html><body>x</body></html>').toString('base64') }, 415, /HTML/)
    })

    it('refuses restricted names in full-width letters (NFKC before the extension check)', async () => {
      await expectTus({ ...ok, filename: 'clip.ｈｔｍｌ' }, 415, /restricted/)
      await expectTus({ ...ok, filename: 'clip．ｓｖｇ' }, 400, /SVG and XML/)
    })

    it('still authorises a real video with every field near its limit', async () => {
      const res = await tusAuth(cms, { ...ok, title: 't'.repeat(500) })
      expect(res.status, await res.clone().text()).to.equal(200)
    })
    it('bounds every field and the body', async () => {
      await expectTus({ ...ok, title: 'x'.repeat(501) }, 400, /"title" must be at most 500 characters/)
      await expectTus({ ...ok, collection: 'c'.repeat(101) }, 400, /"collection" must be at most 100/)
      await expectTus({ ...ok, filetype: `video/${'x'.repeat(300)}` }, 400, /"filetype" must be at most 255/)
      await expectTus({ ...ok, videoToken: 't'.repeat(2049), videoId: 'v' }, 400, /"videoToken" must be at most 2048/)
      // A 1 MB title and a 5 MB body: refused by size before they are parsed (last: the server leaves the
      // rest of such a body unread, and the connection is not reused).
      await expectTus({ ...ok, title: 'x'.repeat(1024 * 1024) }, 413, /exceeds 16384 bytes/)
      await expectTus({ ...ok, padding: 'p'.repeat(5 * 1024 * 1024) }, 413, /exceeds 16384 bytes/)
    })
  })
})
