/**
 * What a browser can be served by the emulator, and how long a client may hold a connection:
 * `X-Content-Type-Options: nosniff` on every answer of every upstream; HTML, SVG, XML and JavaScript
 * files never served as a page (a download under a sandboxing CSP, or their own type sandboxed when
 * `pullZone.inlineActiveContent` asks); a connection that dribbles its headers or its body is closed.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { expect } from 'chai'
import { connect, type Socket } from 'node:net'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { rawRequest } from './helpers/rawRequest.js'

const PAGE = '<!doctype html><script>alert(document.domain)</script>'
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'

/** Opens a raw connection to the emulator. */
function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/**
 * Sends `first`, then one more byte of `drip` every 100 ms for as long as the socket is open; resolves
 * with what the server answered once it closes the connection.
 */
async function dribble(url: string, first: string, drip: string): Promise<string> {
  const socket = await open(url)
  let answer = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk))
  socket.write(first)
  let i = 0
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(drip[i++ % drip.length]!)
  }, 100)
  await new Promise<void>((resolve) => socket.once('close', () => resolve()))
  clearInterval(timer)
  return answer
}

describe('emulator: response headers and connection limits', function () {
  this.timeout(30_000)
  let emulator: RunningEmulator
  let inline: RunningEmulator

  const put = (emu: RunningEmulator, path: string, body: string) =>
    fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/${path}`, { body, headers: { AccessKey: emu.storage.accessKey }, method: 'PUT' })

  before(async () => {
    emulator = await startEmulator({ headersTimeoutMs: 400, requestTimeoutMs: 800 })
    inline = await startEmulator({ pullZone: { inlineActiveContent: true } })
    for (const emu of [emulator, inline]) {
      expect((await put(emu, 'up/poc.html', PAGE)).status).to.equal(201)
      expect((await put(emu, 'up/poc.svg', SVG)).status).to.equal(201)
      expect((await put(emu, 'up/feed.xml', '<?xml version="1.0"?><x/>')).status).to.equal(201)
      expect((await put(emu, 'up/photo.png', 'png-bytes')).status).to.equal(201)
    }
  })
  after(async () => {
    await emulator?.close()
    await inline?.close()
  })

  it('sends X-Content-Type-Options: nosniff on every answer of every upstream', async () => {
    const s3 = new S3Client({
      credentials: { accessKeyId: emulator.storage.zoneName, secretAccessKey: emulator.storage.accessKey },
      endpoint: emulator.storage.s3Endpoint,
      forcePathStyle: true,
      region: 'de',
    })
    const presignedGet = await getSignedUrl(s3, new GetObjectCommand({ Bucket: emulator.storage.zoneName, Key: 'up/photo.png' }), { expiresIn: 60 })
    const answers = await Promise.all([
      fetch(emulator.url), // description
      fetch(`${emulator.url}/nowhere`), // 404
      fetch(`${emulator.storage.cdnUrl}/up/photo.png`), // CDN file
      fetch(`${emulator.storage.cdnUrl}/up/missing.png`), // CDN 404
      fetch(`${emulator.storage.endpoint}/${emulator.storage.zoneName}/up/`), // storage API 401
      fetch(`${emulator.storage.endpoint}/${emulator.storage.zoneName}/up/`, { headers: { AccessKey: emulator.storage.accessKey } }), // listing
      fetch(presignedGet), // S3 GET
      fetch(`${emulator.storage.s3Endpoint}/${emulator.storage.zoneName}/up/photo.png`), // S3 error (XML)
      fetch(`${emulator.storage.s3Endpoint}/${emulator.storage.zoneName}/x`, {
        headers: { 'Access-Control-Request-Method': 'PUT', Origin: 'http://app.test' },
        method: 'OPTIONS',
      }),
      fetch(`${emulator.stream.apiBase}/library/${emulator.stream.libraryId}/videos`), // stream API 401
      fetch(`${emulator.stream.cdnUrl}/00000000-0000-0000-0000-000000000000/playlist.m3u8`), // stream CDN 404
      fetch(emulator.stream.tusEndpoint, { headers: { 'Access-Control-Request-Method': 'POST', Origin: 'http://app.test' }, method: 'OPTIONS' }), // TUS preflight
      fetch(emulator.stream.tusEndpoint, { headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '10' }, method: 'POST' }), // TUS refusal
    ])
    for (const [i, res] of answers.entries()) {
      await res.body?.cancel()
      expect(res.headers.get('x-content-type-options'), `answer ${i} (${res.url} ${res.status})`).to.equal('nosniff')
    }
    expect(answers.map((r) => r.status)).to.include.members([200, 404, 401, 403, 204])
  })

  it('never serves HTML, SVG or XML as a page: a download under a sandboxing CSP, on the CDN, S3 and the storage API', async () => {
    const s3 = new S3Client({
      credentials: { accessKeyId: emulator.storage.zoneName, secretAccessKey: emulator.storage.accessKey },
      endpoint: emulator.storage.s3Endpoint,
      forcePathStyle: true,
      region: 'de',
    })
    for (const name of ['up/poc.html', 'up/poc.svg', 'up/feed.xml']) {
      const answers = [
        await fetch(`${emulator.storage.cdnUrl}/${name}`),
        await fetch(await getSignedUrl(s3, new GetObjectCommand({ Bucket: emulator.storage.zoneName, Key: name }), { expiresIn: 60 })),
        await fetch(`${emulator.storage.endpoint}/${emulator.storage.zoneName}/${name}`, { headers: { AccessKey: emulator.storage.accessKey } }),
      ]
      for (const res of answers) {
        expect(res.status, name).to.equal(200)
        expect(res.headers.get('content-type'), name).to.equal('application/octet-stream')
        expect(res.headers.get('content-disposition'), name).to.equal('attachment')
        expect(res.headers.get('content-security-policy'), name)
          .to.match(/sandbox/)
          .and.match(/default-src 'none'/)
        expect(res.headers.get('x-content-type-options')).to.equal('nosniff')
        await res.body?.cancel()
      }
    }
    // The stored bytes are untouched.
    expect(await (await fetch(`${emulator.storage.cdnUrl}/up/poc.html`)).text()).to.equal(PAGE)
    // Other types keep their own, inline.
    const png = await fetch(`${emulator.storage.cdnUrl}/up/photo.png`)
    expect(png.headers.get('content-type')).to.equal('image/png')
    expect(png.headers.get('content-disposition')).to.equal(null)
    await png.body?.cancel()
  })

  it('serves them as their own type, still sandboxed, only when inlineActiveContent asks', async () => {
    const html = await fetch(`${inline.storage.cdnUrl}/up/poc.html`)
    expect(html.headers.get('content-type')).to.equal('text/html')
    expect(html.headers.get('content-disposition')).to.equal(null)
    expect(html.headers.get('content-security-policy'))
      .to.match(/sandbox/)
      .and.match(/default-src 'none'/)
    await html.body?.cancel()
    const svg = await fetch(`${inline.storage.cdnUrl}/up/poc.svg`)
    expect(svg.headers.get('content-type')).to.equal('image/svg+xml')
    expect(svg.headers.get('content-security-policy')).to.match(/sandbox/)
    await svg.body?.cancel()
  })

  it('closes a connection that dribbles its headers (slow-loris) with 408', async () => {
    const answer = await dribble(emulator.url, 'GET / HTTP/1.1\r\nHost: emulator\r\n', 'X-Slow: aaaaaaaa\r\n')
    expect(answer).to.match(/^HTTP\/1\.1 408/)
  })

  it('closes a connection that dribbles its body past the request timeout', async () => {
    const path = `/storage/${emulator.storage.zoneName}/up/slow.bin`
    const head = `PUT ${path} HTTP/1.1\r\nHost: emulator\r\nAccessKey: ${emulator.storage.accessKey}\r\nContent-Length: 100000\r\n\r\n`
    const answer = await dribble(emulator.url, head, 'x')
    expect(answer).to.match(/^HTTP\/1\.1 408/)
    // Nothing half-written was kept.
    expect(emulator.storedFilePath('up/slow.bin')).to.equal(undefined)
    // The server still answers others.
    expect((await rawRequest(emulator.url, 'GET', '/')).status).to.equal(200)
  })
})
