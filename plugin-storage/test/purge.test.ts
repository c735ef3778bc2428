/**
 * CDN purge against the emulator's purge API (its `GET /purge/log` is the evidence): replacing a stored
 * file purges the old original and every old image size (and the new locations); deleting the document
 * purges all of its files; a save without a new file purges nothing. With the purge API down, the save
 * and the delete still succeed and a warning names the URL, never the account key.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { expect } from 'chai'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { multipart } from './support/api.js'
import { pngBytes } from './support/media.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

interface MediaDoc {
  id: number
  filename: string
  sizes: Record<string, { filename: string | null }>
}

const ACCOUNT_KEY = 'account-key-never-logged-7f3a'

describe('CDN purge', function () {
  this.timeout(60_000)
  let emu: RunningEmulator
  let cms: RunningCms
  let proxy: Server
  /** When true the purge API is "down": connections are dropped without an answer. */
  let down = false
  const warnings: string[] = []

  const purged = async (): Promise<string[]> =>
    ((await (await fetch(`${emu.url}/purge/log`)).json()) as { purges: Array<{ url: string }> }).purges.map((p) => p.url)
  const urlsOf = (doc: MediaDoc) => [doc.filename, ...Object.values(doc.sizes).map((s) => s.filename)].map((name) => `${emu.storage.cdnUrl}/${name}`)
  const create = async (name: string): Promise<MediaDoc> => {
    const res = await cms.fetch('/api/media', { body: multipart(await pngBytes(), name, 'image/png'), method: 'POST' })
    expect(res.status, await res.clone().text()).to.equal(201)
    return ((await res.json()) as { doc: MediaDoc }).doc
  }

  before(async () => {
    emu = await startEmulator({ account: { apiKey: ACCOUNT_KEY } })
    // The plugin talks to the emulator's purge API through this switchable pass-through, to take it down.
    proxy = createServer((req, res) => {
      if (down) {
        req.socket.destroy()
        return
      }
      void fetch(`${emu.account.apiBase}${req.url}`, { headers: { AccessKey: String(req.headers.accesskey ?? '') }, method: req.method }).then(
        async (upstream) => {
          res.writeHead(upstream.status)
          res.end(Buffer.from(await upstream.arrayBuffer()))
        },
      )
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const base = emulatorOptions(emu)
    const apiBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    cms = await startCms({ ...base, storage: { ...base.storage!, purge: { apiBase, apiKey: ACCOUNT_KEY } } })
    const logger = cms.payload.logger
    const warn = logger.warn.bind(logger)
    logger.warn = ((...args: unknown[]) => {
      warnings.push(JSON.stringify(args))
      return (warn as (...a: unknown[]) => void)(...args)
    }) as typeof logger.warn
  })
  after(async () => {
    await cms?.close()
    proxy?.closeAllConnections()
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()))
    await emu?.close()
  })

  it('the emulator refuses a purge without the account key (401) and a missing url (400)', async () => {
    expect(
      (await fetch(`${emu.url}/purge?url=${encodeURIComponent(`${emu.storage.cdnUrl}/x.png`)}`, { headers: { AccessKey: 'wrong' }, method: 'POST' })).status,
    ).to.equal(401)
    expect((await fetch(`${emu.url}/purge`, { headers: { AccessKey: ACCOUNT_KEY }, method: 'POST' })).status).to.equal(400)
    expect(await purged()).to.deep.equal([])
  })

  it('replacing a file purges the old original and every old image size; a save without a new file purges nothing', async () => {
    const doc = await create('before.png')
    expect(Object.values(doc.sizes).every((s) => s.filename)).to.equal(true)
    const oldUrls = urlsOf(doc)
    expect(oldUrls).to.have.length(2)
    expect(await purged(), 'a create purges nothing').to.deep.equal([])

    const edit = await cms.fetch(`/api/media/${doc.id}`, {
      body: JSON.stringify({ alt: 'text only' }),
      headers: { 'Content-Type': 'application/json' },
      method: 'PATCH',
    })
    expect(edit.status).to.equal(200)
    expect(await purged(), 'no new file, nothing to purge').to.deep.equal([])

    const res = await cms.fetch(`/api/media/${doc.id}`, { body: multipart(await pngBytes(90, 60), 'after.png', 'image/png'), method: 'PATCH' })
    expect(res.status, await res.clone().text()).to.equal(200)
    const replaced = ((await res.json()) as { doc: MediaDoc }).doc
    expect(replaced.filename).to.equal('after.png')
    const log = await purged()
    expect(log).to.include.members(oldUrls)
    expect(log).to.include.members(urlsOf(replaced))
    expect(new Set(log).size, 'each URL once').to.equal(log.length)
  })

  it('deleting the document purges its original and every image size', async () => {
    const doc = await create('gone.png')
    const before = (await purged()).length
    expect((await cms.fetch(`/api/media/${doc.id}`, { method: 'DELETE' })).status).to.equal(200)
    const log = (await purged()).slice(before)
    expect(log).to.have.members(urlsOf(doc))
    expect(emu.storedFilePath('gone.png')).to.equal(undefined)
  })

  it('with the purge API down, the replacement and the delete succeed and the failure is logged with the URL, without the key', async () => {
    const doc = await create('down.png')
    const before = (await purged()).length
    down = true
    try {
      const res = await cms.fetch(`/api/media/${doc.id}`, { body: multipart(await pngBytes(70, 50), 'down-new.png', 'image/png'), method: 'PATCH' })
      expect(res.status, await res.clone().text()).to.equal(200)
      const saved = await cms.payload.findByID({ collection: 'media', id: doc.id })
      expect(saved.filename).to.equal('down-new.png')
      expect(emu.storedFilePath('down-new.png')).to.be.a('string')
      expect((await cms.fetch(`/api/media/${doc.id}`, { method: 'DELETE' })).status).to.equal(200)
      expect((await cms.payload.find({ collection: 'media', where: { id: { equals: doc.id } } })).totalDocs).to.equal(0)
    } finally {
      down = false
    }
    expect((await purged()).length, 'nothing reached the purge API').to.equal(before)
    const failures = warnings.filter((w) => w.includes('CDN purge failed'))
    for (const url of urlsOf(doc))
      expect(
        failures.some((w) => w.includes(JSON.stringify(url).slice(1, -1))),
        url,
      ).to.equal(true)
    expect(failures.join('\n')).not.to.include(ACCOUNT_KEY)
  })
})
