import { expect } from 'chai'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createApp } from '../../src/server/createApp.js'
import { contentDisposition } from '../../src/server/contentDisposition.js'
import { FakeEngine, fakeSnapshotView, type FakeSnapshot } from './support/fakeEngine.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { startHostEmulator } from '../storages/support/hostEmulator.js'
import { loginCookie } from './support/requests.js'
import { testConfig, type TestConfigOverrides } from './support/testConfig.js'

const snapshot = (name: string, extra: Partial<FakeSnapshot['view']> = {}): FakeSnapshot['view'] =>
  fakeSnapshotView(name, { path: `/backups/${name}`, size: 11, ...extra })

const partBytes = [Buffer.from('first part '), Buffer.from('second part '), Buffer.from('last')]

/**
 * The in-memory double, only for what the real engine cannot produce here: a snapshot named with a quote and a
 * non-ASCII letter (the engine names them `<job>-<ISO time>.<ext>`), a split set a storage cannot stream whole
 * (every storage here can), and a listing with the catalog's extras of other origins (no checksum manifest, two
 * storages).
 */
async function fakeSetup(overrides: TestConfigOverrides = {}) {
  const engine = new FakeEngine()
  engine.snapshots.set('nightly', [
    { view: snapshot('nightly-20261121.tar.gz'), bytes: Buffer.from('hello bytes') },
    { view: snapshot('nightly-é "x".tar.gz'), bytes: Buffer.from([0, 1, 2, 3]) },
    { view: snapshot('signed.tar.gz'), redirect: 'https://storage.example.org/signed?token=abc' },
    { view: snapshot('set-1', { isSplit: true, partsCount: 3, fullDownloadSupported: false }), fullDownloadUnsupported: true, parts: partBytes },
    {
      view: snapshot('nightly-20261120-030000.tar.gz', {
        isSplit: true,
        partsCount: 3,
        size: 27,
        checksummed: false,
        storage: 'offsite',
        storages: ['offsite', 'disk'],
      }),
      parts: partBytes,
    },
    { view: snapshot('broken.tar.gz', { isSplit: true, partsCount: 3, damaged: true, damageReason: 'part aab is missing' }), parts: partBytes },
  ])
  const app = createApp({ config: testConfig(overrides), engine })
  const cookie = await loginCookie(app)
  return { engine, get: (path: string) => app.request(path, { headers: { cookie } }) }
}

interface RealBackups {
  real: RealEngine
  get(path: string): Response | Promise<Response>
  /** Snapshots written by real runs: `nightly` whole, `parts` split in 64 KiB parts, `broken` split with a part removed. */
  whole: string
  split: string
  broken: string
}

/** Real runs on a temporary folder, shared by the tests below (they only read). */
async function realSetup(overrides: TestConfigOverrides = {}): Promise<RealBackups> {
  const splitJob = '    split: { chunkSize: 65536 }\n'
  const real = await realEngine({ jobs: [{ name: 'nightly' }, { name: 'parts', extra: splitJob }, { name: 'broken', extra: splitJob }], overrides })
  const whole = await real.runJob('nightly')
  const split = await real.runJob('parts')
  const broken = await real.runJob('broken')
  const folder = join(
    real.dir,
    'backups/broken',
    (await readdir(join(real.dir, 'backups/broken'))).find((n) => n.includes('.parts-'))!,
  )
  await rm(join(folder, `${broken}.part-aab`))
  const app = createApp({ config: testConfig(overrides), engine: real.engine })
  const cookie = await loginCookie(app)
  return { real, whole, split, broken, get: (path: string) => app.request(path, { headers: { cookie } }) }
}

/** The bytes of a split set's parts on disk, in order. */
async function partsOf(real: RealEngine, job: string): Promise<Buffer[]> {
  const jobDir = join(real.dir, 'backups', job)
  const folder = join(
    jobDir,
    (await readdir(jobDir)).find((n) => n.includes('.parts-'))!,
  )
  const names = (await readdir(folder)).filter((n) => /\.part-[a-z]{3}$/.test(n)).sort()
  return Promise.all(names.map((n) => readFile(join(folder, n))))
}

describe('api: backups (real runs on a temporary folder)', function () {
  this.timeout(60_000)
  let b: RealBackups
  before(async () => (b = await realSetup()))
  after(() => b.real.close())

  it('GET /jobs/{name}/backups lists Snapshots with the job name; 404 for an unknown job', async () => {
    const res = await b.get('/api/v1/jobs/nightly/backups')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.job).to.equal('nightly')
    expect(body.backups).to.have.length(1)
    const size = (await stat(join(b.real.dir, 'backups/nightly', b.whole))).size
    expect(body.backups[0]).to.include({ id: b.whole, name: b.whole, jobName: 'nightly', size, storageType: 'local', isSplit: false, partsCount: 1 })
    expect(body.backups[0]).to.include({ fullDownloadSupported: true, checksummed: true, damaged: false, storage: 'disk' })
    expect(body.backups[0].storages).to.deep.equal(['disk'])
    expect(body.backups[0]).not.to.have.property('damageReason')
    const split = (await (await b.get('/api/v1/jobs/parts/backups')).json()).backups
    expect(split).to.have.length(1)
    expect(split[0]).to.include({ id: b.split, isSplit: true, damaged: false })
    expect(split[0].partsCount)
      .to.equal((await partsOf(b.real, 'parts')).length)
      .and.be.greaterThan(2)
    const broken = (await (await b.get('/api/v1/jobs/broken/backups')).json()).backups
    expect(broken[0]).to.include({ id: b.broken, isSplit: true, damaged: true })
    expect(broken[0].damageReason).to.equal(`1 of ${broken[0].partsCount} part(s) missing`)
    expect((await b.get('/api/v1/jobs/nope/backups')).status).to.equal(404)
  })

  it('downloads a snapshot with Content-Length, Content-Type and an attachment Content-Disposition', async () => {
    const res = await b.get(`/api/v1/jobs/nightly/backups/${b.whole}/download`)
    expect(res.status).to.equal(200)
    const bytes = await readFile(join(b.real.dir, 'backups/nightly', b.whole))
    expect(res.headers.get('content-length')).to.equal(String(bytes.length))
    expect(res.headers.get('content-type')).to.equal('application/gzip')
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${b.whole}"; filename*=UTF-8''${b.whole}`)
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true)
  })

  it('answers HEAD with the download headers without opening the snapshot', async () => {
    const engine = b.real.engine
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    let opened = 0
    const original = engine.openSnapshot.bind(engine)
    engine.openSnapshot = async (job, name) => {
      const download = await original(job, name)
      if (download.kind !== 'stream') return download
      return { ...download, open: () => ((opened += 1), download.open()) }
    }
    try {
      const path = `/api/v1/jobs/nightly/backups/${b.whole}/download`
      const res = await app.request(path, { method: 'HEAD', headers: { cookie } })
      expect(res.status).to.equal(200)
      expect(res.headers.get('content-length')).to.equal(String((await stat(join(b.real.dir, 'backups/nightly', b.whole))).size))
      expect(res.headers.get('content-disposition')).to.match(/^attachment;/)
      expect(opened).to.equal(0)
      await (await app.request(path, { headers: { cookie } })).arrayBuffer()
      expect(opened).to.equal(1)
    } finally {
      engine.openSnapshot = original
    }
  })

  it('downloads a split set whole by its id and each part by <id>.part-aaa, as the original web client asks', async () => {
    const parts = await partsOf(b.real, 'parts')
    const whole = await b.get(`/api/v1/jobs/parts/backups/${encodeURIComponent(b.split)}/download`)
    expect(whole.status).to.equal(200)
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.concat(parts))).to.equal(true)
    const suffixes = ['aaa', 'aab', 'aac']
    for (const [i, suffix] of suffixes.entries()) {
      const part = await b.get(`/api/v1/jobs/parts/backups/${encodeURIComponent(`${b.split}.part-${suffix}`)}/download`)
      expect(part.status, suffix).to.equal(200)
      expect(part.headers.get('content-disposition')).to.include(`filename="${b.split}.part-${suffix}"`)
      expect(Buffer.from(await part.arrayBuffer()).equals(parts[i]!)).to.equal(true)
    }
    expect((await b.get(`/api/v1/jobs/parts/backups/${b.split}.part-zzz/download`)).status).to.equal(404)
  })

  it('answers a {filename} with /, \\ or .. (also percent-encoded) with a 400 Problem, before the engine is asked', async () => {
    const engine = b.real.engine
    let asked = 0
    const original = engine.openSnapshot.bind(engine)
    engine.openSnapshot = (job, name) => ((asked += 1), original(job, name))
    try {
      for (const filename of [
        '..%2F..%2Fetc%2Fpasswd',
        '..%2E',
        'a..b.tar.gz',
        'x%2e%2ey',
        'x%5Cy',
        '..%5C..%5Cwin.ini',
        'x%252Fy',
        'x%252e%252e',
        'x%255cy',
      ]) {
        const res = await b.get(`/api/v1/jobs/nightly/backups/${filename}/download`)
        expect(res.status, filename).to.equal(400)
        expect(res.headers.get('content-type')).to.equal('application/problem+json')
        const body = await res.json()
        expect(body.errors[0].location, filename).to.equal('path.filename')
        expect(body.error).to.equal(body.detail)
      }
      expect(asked).to.equal(0)
    } finally {
      engine.openSnapshot = original
    }
  })

  it('404 for a name that is not listed or an unknown job', async () => {
    for (const path of ['/api/v1/jobs/nightly/backups/other.tar.gz/download', '/api/v1/jobs/nope/backups/x/download']) {
      const res = await b.get(path)
      expect(res.status, path).to.equal(404)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
    }
  })

  it('403 when allowBackupDownload is off, before touching the storage', async () => {
    const engine = b.real.engine
    const app = createApp({ config: testConfig({ permissions: { allowBackupDownload: false } }), engine })
    const cookie = await loginCookie(app)
    let opened = false
    const original = engine.openSnapshot.bind(engine)
    engine.openSnapshot = async () => {
      opened = true
      throw new Error('must not be called')
    }
    try {
      const res = await app.request(`/api/v1/jobs/nightly/backups/${b.whole}/download`, { headers: { cookie } })
      expect(res.status).to.equal(403)
      expect(opened).to.equal(false)
    } finally {
      engine.openSnapshot = original
    }
  })
})

describe('api: backups on a host storage with a token-signed pull zone (the host emulator)', function () {
  this.timeout(60_000)

  it('answers 307 with Location: the CDN URL the storage signed, which serves the snapshot', async () => {
    const emulator = await startHostEmulator({ storage: { zoneName: 'zone', accessKey: 'zone-key' }, pullZone: { tokenAuthKey: 'cdn-key' } })
    const real = await realEngine({
      configYaml: `dataDir: ./data
jobs:
  - name: cdn
    sources: [{ type: local, name: files, path: "{src}" }]
    storages:
      - { type: host, name: bunny, endpoint: "${emulator.storage.endpoint}", zoneName: zone, accessKey: zone-key, pullZoneHostname: "${emulator.storage.cdnUrl}", pullZoneTokenAuthKey: cdn-key }
`,
    })
    try {
      const snapshot = await real.runJob('cdn')
      const app = createApp({ config: testConfig(), engine: real.engine })
      const cookie = await loginCookie(app)
      const res = await app.request(`/api/v1/jobs/cdn/backups/${snapshot}/download`, { headers: { cookie } })
      expect(res.status).to.equal(307)
      const location = res.headers.get('location')!
      expect(location.startsWith(`${emulator.storage.cdnUrl}/`), location).to.equal(true)
      expect(location).to.match(/\?token=HS256-[\w-]+&expires=\d+$/)
      const served = await fetch(location)
      expect(served.status).to.equal(200)
      // The object the URL names in the zone: `<job>/<snapshot>` (the storage's layout), as the emulator stores it.
      const zonePath = decodeURIComponent(location.slice(emulator.storage.cdnUrl.length + 1).split('?')[0]!)
      expect(zonePath).to.equal(`cdn/${snapshot}`)
      const stored = await readFile(emulator.storedFilePath(zonePath)!)
      expect(Buffer.from(await served.arrayBuffer()).equals(stored)).to.equal(true)
    } finally {
      await real.close()
      await emulator.close()
    }
  })
})

describe('api: backups (states the real engine cannot produce here: the in-memory double)', () => {
  it('lists the catalog extras of other origins: no checksum manifest, held by two storages, damaged with a reason', async () => {
    const { get } = await fakeSetup()
    const body = await (await get('/api/v1/jobs/nightly/backups')).json()
    expect(body.backups).to.have.length(6)
    expect(body.backups[4]).to.include({ checksummed: false, damaged: false, storage: 'offsite' })
    expect(body.backups[4].storages).to.deep.equal(['offsite', 'disk'])
    expect(body.backups[4]).not.to.have.property('damageReason')
    expect(body.backups[5]).to.include({ damaged: true, damageReason: 'part aab is missing' })
  })

  it('keeps a non-ASCII or quoted file name safe in Content-Disposition', async () => {
    const { get } = await fakeSetup()
    const res = await get(`/api/v1/jobs/nightly/backups/${encodeURIComponent('nightly-é "x".tar.gz')}/download`)
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="nightly-_ _x_.tar.gz"; filename*=UTF-8''nightly-%C3%A9%20%22x%22.tar.gz`)
    expect([...new Uint8Array(await res.arrayBuffer())]).to.deep.equal([0, 1, 2, 3])
    expect(contentDisposition('../../etc/pass\r\nwd;x')).to.equal(`attachment; filename="pass__wd_x"; filename*=UTF-8''pass%0D%0Awd%3Bx`)
  })

  it('501 when a split set cannot be streamed whole; each part still downloads', async () => {
    const { get } = await fakeSetup()
    const split = await get('/api/v1/jobs/nightly/backups/set-1/download')
    expect(split.status).to.equal(501)
    expect((await split.json()).detail).to.include('parts')
    expect((await get('/api/v1/jobs/nightly/backups/set-1.part-aab/download')).status).to.equal(200)
  })
})
