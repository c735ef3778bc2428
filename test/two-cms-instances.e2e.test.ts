/**
 * Two CMS instances on one PostgreSQL database, as a site that outgrew one machine runs them behind a proxy:
 * each a real Payload with the plugin in its own process (plugin-storage/test/support/cmsProcess.ts), the same
 * secret, the emulator behind both. What must happen once happens once across them: a client-upload
 * receipt makes one document even when both instances get it at the same instant, a save that failed on
 * one leaves the receipt usable on the other, and the orphan sweep runs once per interval, not once per
 * instance. Each instance reaches the storage API through a small proxy of its own that counts the sweep's
 * listings and can fail the thumbnail's upload.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import { fileURLToPath } from 'node:url'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from '../backup-daemon/test/sources/support/postgresCluster.js'
import { STORAGE_UPLOAD_PATH } from '../plugin-storage/src/constants.js'
import { startCmsChild, type RemoteCms } from '../plugin-storage/test/support/cmsChild.js'
import { pngBytes } from '../plugin-storage/test/support/media.js'

interface Signed {
  url: string
  headers: Record<string, string>
  filename: string
  clientUploadContext: { _objectKey: string; prefix: string; signedReceipt: string }
}

/** A storage API proxy: counts the listings of the zone's root (the orphan sweep's first call), fails thumbnails on demand. */
interface StorageProxy {
  endpoint: string
  listings: number
  failThumbnails: boolean
  close(): Promise<void>
}

async function storageProxy(emu: RunningEmulator): Promise<StorageProxy> {
  const state = { failThumbnails: false, listings: 0 }
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === `/${emu.storage.zoneName}/`) state.listings++
    if (state.failThumbnails && req.method === 'PUT' && /-40x40/.test(req.url ?? '')) {
      req.resume()
      res.writeHead(500).end('refused by the test proxy')
      return
    }
    const upstream = httpRequest(`${emu.storage.endpoint}${req.url}`, { headers: req.headers, method: req.method }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return Object.assign(state, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  })
}

const SWEEP_SECONDS = 2

describe('two CMS instances on one PostgreSQL (plugin-storage)', function () {
  this.timeout(10 * 60_000)
  let pg: PostgresCluster | undefined
  let emu: RunningEmulator | undefined
  const proxies: StorageProxy[] = []
  const instances: RemoteCms[] = []
  const [a, b] = [() => instances[0]!, () => instances[1]!]

  const sign = async (cms: RemoteCms, png: Buffer, filename: string): Promise<Signed> => {
    const res = await cms.fetch(`/api${STORAGE_UPLOAD_PATH}`, {
      body: JSON.stringify({ collectionSlug: 'media', filename, mimeType: 'image/png', size: png.length }),
      headers: { 'Content-Type': 'application/json' },
      method: 'POST',
    })
    expect(res.status, await res.clone().text()).to.equal(200)
    const signed = (await res.json()) as Signed
    expect((await fetch(signed.url, { body: new Uint8Array(png), headers: signed.headers, method: 'PUT' })).status).to.equal(200)
    return signed
  }
  const create = (cms: RemoteCms, signed: Signed, png: Buffer) => {
    const form = new FormData()
    form.append('file', JSON.stringify({ clientUploadContext: signed.clientUploadContext, filename: signed.filename, mimeType: 'image/png', size: png.length }))
    form.append('_payload', JSON.stringify({ alt: 'two instances' }))
    return cms.fetch('/api/media', { body: form, method: 'POST' })
  }
  const mediaWithFolder = async (folder: string) =>
    Number(await pg!.sql('cms', `SELECT count(*) FROM media WHERE _objectkey = '${folder.replace(/'/g, "''")}'`))

  before(async () => {
    pg = await startPostgresCluster(await requirePostgresBin())
    emu = await startEmulator()
    const databaseUri = `postgres://${pg.superuser}:${encodeURIComponent(pg.password)}@127.0.0.1:${pg.port}/cms`
    const secret = `two-instances-${Date.now()}`
    // One after the other: the first creates the database and pushes the schema, the second finds it.
    for (const label of ['instance A', 'instance B']) {
      const proxy = await storageProxy(emu)
      proxies.push(proxy)
      instances.push(
        await startCmsChild({
          cwd: fileURLToPath(new URL('../plugin-storage', import.meta.url)),
          emu,
          input: { databaseUri, scenario: 'default', secret, storageEndpoint: proxy.endpoint, sweepInterval: SWEEP_SECONDS },
          label,
          node: process.execPath,
          script: 'test/support/cmsProcess.ts',
        }),
      )
    }
  })
  after(async () => {
    for (const cms of instances) await cms.close()
    for (const proxy of proxies) await proxy.close()
    await emu?.close()
    await pg?.stop()
  })

  it('makes one document of a receipt sent to both instances at the same instant, and refuses it on both after', async () => {
    const png = await pngBytes(48, 32)
    for (let round = 0; round < 4; round++) {
      const signed = await sign(a(), png, `race ${round}.png`)
      const answers = await Promise.all([create(a(), signed, png), create(b(), signed, png)])
      const statuses = answers.map((res) => res.status).sort()
      const bodies = await Promise.all(answers.map((res) => res.text()))
      expect(statuses, `round ${round}: ${bodies.join(' | ')}`).to.deep.equal([201, 400])
      // Refused by the receipt's claim, with what to do, not by the database's unique file name ("Value must be unique").
      expect(bodies.find((_, k) => answers[k]!.status === 400)).to.match(/receipt was already used.*Upload the file again/)
      expect(await mediaWithFolder(signed.clientUploadContext._objectKey)).to.equal(1)
      for (const cms of [a(), b()]) expect((await create(cms, signed, png)).status).to.equal(400)
      expect(await mediaWithFolder(signed.clientUploadContext._objectKey)).to.equal(1)
    }
  })

  it('leaves the receipt of a save that failed on one instance usable on the other', async () => {
    const png = await pngBytes(64, 64)
    const signed = await sign(a(), png, 'failed once.png')
    proxies[0]!.failThumbnails = true
    try {
      const failed = await create(a(), signed, png)
      expect(failed.status, await failed.clone().text()).to.be.oneOf([500, 502])
    } finally {
      proxies[0]!.failThumbnails = false
    }
    expect(await mediaWithFolder(signed.clientUploadContext._objectKey)).to.equal(0)
    // The failed save removed what the browser had uploaded (nothing is left behind); the browser uploads it
    // again with its still valid URL and sends the same receipt, this time to B.
    expect(emu!.storedFilePath(`${signed.clientUploadContext._objectKey}/${signed.filename}`)).to.equal(undefined)
    expect((await fetch(signed.url, { body: new Uint8Array(png), headers: signed.headers, method: 'PUT' })).status).to.equal(200)
    const retried = await create(b(), signed, png)
    expect(retried.status, await retried.clone().text()).to.equal(201)
    expect(await mediaWithFolder(signed.clientUploadContext._objectKey)).to.equal(1)
  })

  it('runs the orphan sweep once per interval across the instances, not once per instance', async () => {
    const before = proxies.map((proxy) => proxy.listings)
    const seconds = 5 * SWEEP_SECONDS
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    const swept = proxies.map((proxy, k) => proxy.listings - before[k]!)
    const total = swept[0]! + swept[1]!
    // Each instance's timer fires 5 times in the window; without the claim the zone was listed about 10 times.
    expect(total, `listings per instance: ${swept.join(', ')}`).to.be.within(3, 6)
    expect(Number(await pg!.sql('cms', `SELECT count(*) FROM "payload_storage_host_claims" WHERE key LIKE 'orphan sweep%'`))).to.equal(1)
  })
})
