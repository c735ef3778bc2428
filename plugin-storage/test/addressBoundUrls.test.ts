/**
 * Signed URLs bound to the viewer's address (`tokenAuth.bindToAddress`), against the emulator's pull zones,
 * which check the host's `HS256-1-` tokens against the address a request comes from. Loopback has a whole
 * /8 on Linux: a request sent from 127.0.0.2 is "the viewer", one from 127.0.0.3 "someone else". The CMS
 * learns the viewer's address from the header its proxy sets (`X-Forwarded-For`, last entry).
 * Generated cases check the plugin's signer against the emulator's verifier for any IPv4 or IPv6 address
 * (an IPv6 viewer is bound to its /64), path, folder token and expiry.
 */
import { request } from 'node:http'

import { expect } from 'chai'
import fc from 'fast-check'
import { startEmulator, verifyCdnToken, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import type { PlaybackUrls, StorageOptions } from '../src/types.js'
import { signCdnUrl } from '../src/upstream/signatures.js'
import { multipart } from './support/api.js'
import { uploadFinishedVideo, type Uploaded } from './support/finishedVideo.js'
import { pngBytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

const VIEWER = '127.0.0.2'
const SOMEONE_ELSE = '127.0.0.3'
/** What the CMS's proxy sends: the client's own claim first, the address the proxy saw last. */
const proxied = { 'X-Forwarded-For': `10.9.8.7, ${VIEWER}` }

/** GET `url` from the local address `from`: its status (no redirects followed). */
function getFrom(url: string, from: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: from }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('signed URLs bound to the viewer’s address', function () {
  this.timeout(90_000)
  let emu: RunningEmulator
  let cms: RunningCms
  let video: Uploaded
  const zoneKey = 'zone-token-key'
  const libraryKey = 'library-token-key'

  before(async () => {
    emu = await startEmulator({ pullZone: { tokenAuthKey: zoneKey }, stream: { encodingStepMs: 10, tokenAuthKey: libraryKey } })
    const base = emulatorOptions(emu)
    const zone = (extra: Partial<StorageOptions>): StorageOptions => ({
      ...base.storage!,
      tokenAuth: { bindToAddress: true, expiresIn: 3, key: zoneKey },
      ...extra,
    })
    cms = await startCms({
      ...base,
      collections: {
        media: { target: 'storage', zone: zone({ publicUrls: true, serve: 'redirect' }) },
        'plain-files': { target: 'storage', zone: zone({ serve: 'redirect' }) },
        videos: 'stream',
      },
      storage: undefined,
      stream: { ...base.stream!, tokenAuth: { bindToAddress: true, expiresIn: 3, key: libraryKey } },
    })
    emu.setWebhookUrl(`${cms.url}/api${WEBHOOK_PATH}`)
    video = await uploadFinishedVideo(cms, emu, 'bound')
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
  })

  it('answers playback, public and redirect URLs that open from the viewer’s address only, and no URL to a request without one', async () => {
    const png = await pngBytes(60, 40)
    const image = await cms.fetch('/api/media', { body: multipart(png, 'bound.png', 'image/png'), method: 'POST' })
    expect(image.status, await image.clone().text()).to.equal(201)
    const imageId = ((await image.json()) as { doc: { id: number } }).doc.id
    const file = await cms.fetch('/api/plain-files', { body: multipart(Buffer.from('%PDF-1.4\n%%EOF\n'), 'bound.pdf', 'application/pdf'), method: 'POST' })
    expect(file.status, await file.clone().text()).to.equal(201)

    const res = await cms.fetch(`/api/videos/${video.docId}/playback`, { headers: proxied })
    expect(res.status, await res.clone().text()).to.equal(200)
    const play = (await res.json()) as PlaybackUrls
    expect(play.hls).to.include('/bcdn_token=HS256-1-')
    type ImageDoc = { url: string; thumbnailURL: string; sizes: { thumbnail: { url: string } } }
    const doc = (await (await cms.fetch(`/api/media/${imageId}`, { headers: proxied })).json()) as ImageDoc
    // The admin thumbnail cannot know the viewer (Payload hands it the document only): the file route does.
    expect(doc.thumbnailURL).to.match(/^\/api\/media\/file\/bound-40x40\.png/)
    const thumbnail = await cms.fetch(doc.thumbnailURL, { headers: proxied, redirect: 'manual' })
    expect(thumbnail.status).to.equal(302)
    const redirect = await cms.fetch('/api/plain-files/file/bound.pdf', { headers: proxied, redirect: 'manual' })
    expect(redirect.status).to.equal(302)
    const pdf = redirect.headers.get('location')!

    // A sibling of the playlist under its directory token (as its renditions and segments are): the token,
    // and its address, carry over.
    const sibling = play.hls!.replace('/playlist.m3u8', '/thumbnail.jpg')
    const urls = [play.hls!, sibling, play.thumbnail!, ...play.mp4.map((r) => r.url), doc.url, doc.sizes.thumbnail.url, thumbnail.headers.get('location')!, pdf]
    for (const url of urls) {
      expect(url, url).to.match(/token=HS256-1-/)
      expect((await getFrom(url, VIEWER)).status, `from the viewer: ${url}`).to.equal(200)
      expect((await getFrom(url, SOMEONE_ELSE)).status, `from elsewhere: ${url}`).to.equal(403)
    }

    // No address, no URL: the playback endpoint and the file route say why; the document's url is null.
    const blind = await cms.fetch(`/api/videos/${video.docId}/playback`)
    expect(blind.status).to.equal(403)
    expect(((await blind.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(/bound to the viewer's address.*x-forwarded-for/)
    expect((await cms.fetch('/api/plain-files/file/bound.pdf', { redirect: 'manual' })).status).to.equal(403)
    const unnamed = (await (await cms.fetch(`/api/media/${imageId}`)).json()) as { url: string | null }
    expect(unnamed.url).to.equal(null)

    // The absolute expiry: 3 s later the same URLs are refused from the viewer's address too.
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    for (const url of urls) expect((await getFrom(url, VIEWER)).status, `expired: ${url}`).to.equal(403)
  })

  it('binds to the address the host checks, for any IPv4 or IPv6 viewer (its /64), path, folder token and expiry (generated)', () => {
    const key = 'generated-key'
    const now = Date.now()
    const octet = fc.integer({ max: 255, min: 0 })
    const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'))
    const group = fc.integer({ max: 0xffff, min: 0 }).map((n) => n.toString(16))
    const ipv6 = fc.array(group, { maxLength: 8, minLength: 8 }).map((groups) => groups.join(':'))
    // Not `.` or `..`: a URL resolves those away.
    const segment = fc.stringMatching(/^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,11}$/)
    fc.assert(
      fc.property(
        fc.oneof(ipv4, ipv6),
        fc.array(segment, { maxLength: 4, minLength: 1 }),
        fc.boolean(),
        fc.integer({ max: 86_400, min: 1 }),
        (address, segments, folderToken, lifetime) => {
          const path = `/${segments.join('/')}`
          const tokenPath = folderToken ? `${path.replace(/[^/]*$/, '')}` : undefined
          const url = signCdnUrl(`https://cdn.example${path}`, { address, expires: Math.floor(now / 1000) + lifetime, key, tokenPath })
          const query = new URL(url).searchParams
          const verify = (clientIp: string, at = now) => verifyCdnToken({ clientIp, key, now: at, path, query })
          expect(verify(address), url).to.equal(undefined)
          const other = address.includes(':')
            ? // Another /64 is refused; the same /64 with another interface id is the same viewer.
              `${address.split(':')[0] === 'ffff' ? '0' : 'ffff'}:${address.split(':').slice(1).join(':')}`
            : address === '9.9.9.9'
              ? '8.8.8.8'
              : '9.9.9.9'
          expect(verify(other), `${url} from ${other}`).to.equal('bad token')
          if (address.includes(':')) expect(verify(`${address.split(':').slice(0, 4).join(':')}::1`)).to.equal(undefined)
          expect(verify(address, now + (lifetime + 1) * 1000)).to.equal('expired')
        },
      ),
      { numRuns: 300 },
    )
  })
})
