import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { expect } from 'chai'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import type { Browser } from 'playwright-core'
import { signCdnUrl, startEmulator, tusSignature } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { launchBrowser } from '../support/browser.js'
import { fakeMp4 } from './helpers/fakeMp4.js'

const tusBundle = createRequire(import.meta.url).resolve('tus-js-client/dist/tus.min.js')

/** The page runs on another origin (another port) than the emulator: every call is cross-origin. */
async function startPageServer(): Promise<{ server: Server; url: string }> {
  const script = await readFile(tusBundle)
  const server = createServer((req, res) => {
    if (req.url === '/tus.min.js') {
      res.writeHead(200, { 'Content-Type': 'application/javascript' })
      res.end(script)
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html' })
    res.end('<!doctype html><title>uploader</title><script src="/tus.min.js"></script>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }
}

describe('emulator: browser-direct uploads across origins (Chromium)', function () {
  this.timeout(60_000)
  let browser: Browser
  let emulator: RunningEmulator
  let page: { server: Server; url: string }

  before(async () => {
    browser = await launchBrowser()
    emulator = await startEmulator({ pullZone: { tokenAuthKey: 'browser-token-key' }, stream: { encodingStepMs: 5 } })
    page = await startPageServer()
  })
  after(async () => {
    await browser?.close()
    page?.server.closeAllConnections()
    await new Promise((resolve) => (page ? page.server.close(resolve) : resolve(undefined)))
    await emulator?.close()
  })

  it('PUTs to a presigned S3 URL, uploads through TUS and reads a token-signed CDN URL', async () => {
    const image = Buffer.from('browser image bytes')
    const client = new S3Client({
      region: 'de',
      requestChecksumCalculation: 'WHEN_REQUIRED',
      endpoint: emulator.storage.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: emulator.storage.zoneName, secretAccessKey: emulator.storage.accessKey },
    })
    const putUrl = await getSignedUrl(
      client,
      new PutObjectCommand({ Bucket: emulator.storage.zoneName, Key: 'browser/pic.png', ContentType: 'image/png', ContentLength: image.length }),
      {
        expiresIn: 120,
        signableHeaders: new Set(['content-type', 'content-length']),
      },
    )
    client.destroy()

    const created = await fetch(`${emulator.stream.apiBase}/library/${emulator.stream.libraryId}/videos`, {
      method: 'POST',
      headers: { AccessKey: emulator.stream.apiKey, 'Content-Type': 'application/json' },
      body: '{"title":"From the browser"}',
    })
    const { guid } = (await created.json()) as { guid: string }
    const expire = Math.floor(Date.now() / 1000) + 600
    const video = fakeMp4({ width: 1280, height: 720, mediaBytes: 300_000 })

    const tab = await browser.newPage()
    // tsx compiles this file with esbuild's keepNames, which wraps functions in `__name(...)`: define it in the page.
    await tab.addInitScript('window.__name = (fn) => fn')
    await tab.goto(page.url)
    const result = await tab.evaluate(
      async ({ putUrl, image, video, tus, cdnUrl }) => {
        const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
        const put = await fetch(putUrl, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: new Blob([bytes(image)]) })
        const etag = put.headers.get('ETag')
        const tusClient = (
          window as unknown as { tus: { Upload: new (file: Blob, options: Record<string, unknown>) => { start(): void; url: string | null } } }
        ).tus
        const uploadUrl = await new Promise<string>((resolve, reject) => {
          const upload = new tusClient.Upload(new Blob([bytes(video)], { type: 'video/mp4' }), {
            endpoint: tus.endpoint,
            headers: tus.headers,
            metadata: { filetype: 'video/mp4', title: 'From the browser' },
            chunkSize: 100_000,
            retryDelays: [],
            onSuccess: () => resolve(upload.url ?? ''),
            onError: (error: Error) => reject(error),
          })
          upload.start()
        })
        const cdn = await fetch(cdnUrl)
        return { putStatus: put.status, etag, uploadUrl, cdnStatus: cdn.status, cdnText: await cdn.text() }
      },
      {
        putUrl,
        image: image.toString('base64'),
        video: video.toString('base64'),
        tus: {
          endpoint: emulator.stream.tusEndpoint,
          headers: {
            AuthorizationSignature: tusSignature(emulator.stream.libraryId, emulator.stream.apiKey, expire, guid),
            AuthorizationExpire: String(expire),
            VideoId: guid,
            LibraryId: String(emulator.stream.libraryId),
          },
        },
        cdnUrl: signCdnUrl(`${emulator.storage.cdnUrl}/browser/pic.png`, { key: 'browser-token-key', expiresIn: 120 }),
      },
    )
    await tab.close()

    expect(result.putStatus).to.equal(200)
    expect(result.etag, 'ETag exposed to the page').to.match(/^"[0-9a-f]{32}"$/)
    expect(await readFile(emulator.storedFilePath('browser/pic.png') ?? '')).to.deep.equal(image)
    expect(result.uploadUrl.startsWith(`${emulator.stream.tusEndpoint}/`)).to.equal(true)
    expect(result.cdnStatus).to.equal(200)
    expect(result.cdnText).to.equal('browser image bytes')
    const encoded = await emulator.whenEncoded(guid)
    expect(encoded).to.include({ status: 4, storageSize: video.length })
  })
})
