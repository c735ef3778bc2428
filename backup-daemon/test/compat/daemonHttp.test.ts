/**
 * The real daemon process over HTTP on a storage the original service wrote: the listing JSON carries
 * the compat fields (`id` = name, `checksummed`, `damaged`, `damageReason`, `storage`, `storages`), and
 * the download routes serve a whole snapshot, a split set whole and one part (`<id>.part-aab`), answer
 * 404 for one deleted after the listing and 501 for a damaged set's whole download.
 */
import { expect } from 'chai'
import { mkdir, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'
import { tempDir } from '../engine/helpers.js'
import { makeFiles } from './support/compatFixture.js'
import { writeOriginal, type OriginalSnapshot } from './support/originalSnapshots.js'

describe("compat: the daemon serves the original service's snapshots over HTTP", function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let daemon: DaemonProcess | undefined
  let whole: OriginalSnapshot
  let split: OriginalSnapshot
  let damaged: OriginalSnapshot

  before(async () => {
    tmp = await tempDir('bd-compat-http-')
    const sources = join(tmp.dir, 'snapr-sources')
    await makeFiles(join(sources, 'local_1'))
    await mkdir(join(tmp.dir, 'live'))
    const store = join(tmp.dir, 'store')
    whole = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-04-01T01:02:03Z'), compression: 'tar.zst' })
    split = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-04-02T01:02:03Z'), compression: 'zip', chunkSize: 64_000 })
    damaged = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-04-03T01:02:03Z'), compression: 'tar', chunkSize: 64_000 })
    await unlink(join(damaged.dir, damaged.wrapper!, damaged.parts.at(-1)!))
    await writeFile(
      join(tmp.dir, 'config.yaml'),
      `dataDir: ./data
server: { address: "127.0.0.1:0" }
jobs:
  - name: legacy
    compression: tar.gz
    sources: [{ type: local, name: files, path: ./live }]
    storages: [{ type: local, name: disk, path: ./store }]
`,
    )
    daemon = await spawnDaemon(join(tmp.dir, 'config.yaml'))
  })
  after(async () => {
    await daemon?.stop()
    await tmp.remove()
  })

  const get = (path: string) => fetch(`${daemon!.url}/api/v1${path}`)
  const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer())

  it('lists them with the compat fields', async () => {
    const response = await get('/jobs/legacy/backups')
    expect(response.status).to.equal(200)
    const { backups } = (await response.json()) as { backups: Record<string, unknown>[] }
    expect(backups.map((b) => b.name)).to.deep.equal([damaged.name, split.name, whole.name])
    expect(backups[2]).to.deep.include({
      id: whole.name,
      name: whole.name,
      jobName: 'legacy',
      size: whole.bytes.length,
      createdAt: '2026-04-01T01:02:03.000Z',
      isSplit: false,
      partsCount: 1,
      checksummed: false,
      damaged: false,
      storage: 'disk',
      storages: ['disk'],
    })
    expect(backups[2]).not.to.have.property('damageReason')
    expect(backups[1]).to.deep.include({ isSplit: true, partsCount: split.parts.length, size: split.bytes.length, damaged: false, fullDownloadSupported: true })
    expect(backups[0]).to.deep.include({ damaged: true, damageReason: `1 of ${damaged.parts.length} part(s) missing`, fullDownloadSupported: false })
  })

  it('downloads whole, a split set whole, one part; 501 for a damaged set whole; 404 once deleted', async () => {
    const one = await get(`/jobs/legacy/backups/${whole.name}/download`)
    expect(one.status).to.equal(200)
    expect(one.headers.get('content-length')).to.equal(String(whole.bytes.length))
    expect(await bytesOf(one)).to.deep.equal(whole.bytes)
    const set = await get(`/jobs/legacy/backups/${split.name}/download`)
    expect(set.status).to.equal(200)
    expect(await bytesOf(set)).to.deep.equal(split.bytes)
    const part = await get(`/jobs/legacy/backups/${split.name}.part-aab/download`)
    expect(part.status).to.equal(200)
    expect(await bytesOf(part)).to.deep.equal(split.bytes.subarray(64_000, 128_000))
    const refused = await get(`/jobs/legacy/backups/${damaged.name}/download`)
    expect(refused.status).to.equal(501)
    expect(await refused.text()).to.include('is damaged')
    const present = await get(`/jobs/legacy/backups/${damaged.parts[0]}/download`)
    expect(present.status).to.equal(200)
    await bytesOf(present)
    await unlink(join(whole.dir, whole.name))
    const gone = await get(`/jobs/legacy/backups/${whole.name}/download`)
    expect(gone.status).to.equal(404)
  })
})
