import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { contentDisposition } from '../../src/server/contentDisposition.js'
import { FakeEngine, fakeSnapshotView, type FakeSnapshot } from './support/fakeEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig, type TestConfigOverrides } from './support/testConfig.js'

const snapshot = (name: string, extra: Partial<FakeSnapshot['view']> = {}): FakeSnapshot['view'] =>
  fakeSnapshotView(name, { path: `/backups/${name}`, size: 11, ...extra })

const partBytes = [Buffer.from('first part '), Buffer.from('second part '), Buffer.from('last')]

async function setup(overrides: TestConfigOverrides = {}) {
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

describe('api: backups', () => {
  it('GET /jobs/{name}/backups lists Snapshots with the job name; 404 for an unknown job', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs/nightly/backups')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.job).to.equal('nightly')
    expect(body.backups).to.have.length(6)
    expect(body.backups[0]).to.deep.equal(snapshot('nightly-20261121.tar.gz'))
    for (const item of body.backups) expect(item.id, 'id = name').to.equal(item.name)
    // The daemon's additions: checksum manifest or not, damage and its reason, the storage(s) holding it.
    expect(body.backups[4]).to.include({ checksummed: false, damaged: false, storage: 'offsite' })
    expect(body.backups[4].storages).to.deep.equal(['offsite', 'disk'])
    expect(body.backups[4]).not.to.have.property('damageReason')
    expect(body.backups[5]).to.include({ damaged: true, damageReason: 'part aab is missing' })
    expect((await get('/api/v1/jobs/weekly/backups')).status).to.equal(200)
    expect((await get('/api/v1/jobs/nope/backups')).status).to.equal(404)
  })

  it('downloads a snapshot with Content-Length, Content-Type and an attachment Content-Disposition', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs/nightly/backups/nightly-20261121.tar.gz/download')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-length')).to.equal('11')
    expect(res.headers.get('content-type')).to.equal('application/gzip')
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="nightly-20261121.tar.gz"; filename*=UTF-8''nightly-20261121.tar.gz`)
    expect(Buffer.from(await res.arrayBuffer()).toString()).to.equal('hello bytes')
  })

  it('keeps a non-ASCII or quoted file name safe in Content-Disposition', async () => {
    const { get } = await setup()
    const res = await get(`/api/v1/jobs/nightly/backups/${encodeURIComponent('nightly-é "x".tar.gz')}/download`)
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="nightly-_ _x_.tar.gz"; filename*=UTF-8''nightly-%C3%A9%20%22x%22.tar.gz`)
    expect([...new Uint8Array(await res.arrayBuffer())]).to.deep.equal([0, 1, 2, 3])
    expect(contentDisposition('../../etc/pass\r\nwd;x')).to.equal(`attachment; filename="pass__wd_x"; filename*=UTF-8''pass%0D%0Awd%3Bx`)
  })

  it('answers HEAD with the download headers without opening the snapshot', async () => {
    const { engine } = await setup()
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    let opened = 0
    const original = engine.openSnapshot.bind(engine)
    engine.openSnapshot = async (job, name) => {
      const download = await original(job, name)
      if (download.kind !== 'stream') return download
      return { ...download, open: () => ((opened += 1), download.open()) }
    }
    const res = await app.request('/api/v1/jobs/nightly/backups/nightly-20261121.tar.gz/download', { method: 'HEAD', headers: { cookie } })
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-length')).to.equal('11')
    expect(res.headers.get('content-disposition')).to.match(/^attachment;/)
    expect(opened).to.equal(0)
    await (await app.request('/api/v1/jobs/nightly/backups/nightly-20261121.tar.gz/download', { headers: { cookie } })).arrayBuffer()
    expect(opened).to.equal(1)
  })

  it('answers 307 with Location for a signed storage URL', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs/nightly/backups/signed.tar.gz/download')
    expect(res.status).to.equal(307)
    expect(res.headers.get('location')).to.equal('https://storage.example.org/signed?token=abc')
  })

  it('downloads a split set whole by its id and each part by <id>.part-aaa, as the original web client asks', async () => {
    const { get } = await setup()
    const id = 'nightly-20261120-030000.tar.gz'
    const whole = await get(`/api/v1/jobs/nightly/backups/${encodeURIComponent(id)}/download`)
    expect(whole.status).to.equal(200)
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.concat(partBytes))).to.equal(true)
    for (const [i, suffix] of ['aaa', 'aab', 'aac'].entries()) {
      const part = await get(`/api/v1/jobs/nightly/backups/${encodeURIComponent(`${id}.part-${suffix}`)}/download`)
      expect(part.status, suffix).to.equal(200)
      expect(part.headers.get('content-disposition')).to.include(`filename="${id}.part-${suffix}"`)
      expect(Buffer.from(await part.arrayBuffer()).equals(partBytes[i]!)).to.equal(true)
    }
    // A part of a set the storage cannot stream whole is still downloadable on its own.
    expect((await get('/api/v1/jobs/nightly/backups/set-1.part-aab/download')).status).to.equal(200)
    expect((await get(`/api/v1/jobs/nightly/backups/${id}.part-aad/download`)).status).to.equal(404)
  })

  it('answers a {filename} with /, \\ or .. (also percent-encoded) with a 400 Problem, before the engine is asked', async () => {
    const { get, engine } = await setup()
    let asked = 0
    const original = engine.openSnapshot.bind(engine)
    engine.openSnapshot = (job, name) => ((asked += 1), original(job, name))
    for (const filename of ['..%2F..%2Fetc%2Fpasswd', '..%2E', 'a..b.tar.gz', 'x%2e%2ey', 'x%5Cy', '..%5C..%5Cwin.ini', 'x%252Fy', 'x%252e%252e', 'x%255cy']) {
      const res = await get(`/api/v1/jobs/nightly/backups/${filename}/download`)
      expect(res.status, filename).to.equal(400)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
      const body = await res.json()
      expect(body.errors[0].location, filename).to.equal('path.filename')
      expect(body.error).to.equal(body.detail)
    }
    expect(asked).to.equal(0)
  })

  it('404 for a name that is not listed or an unknown job, 501 when a split set cannot be streamed whole', async () => {
    const { get } = await setup()
    for (const path of ['/api/v1/jobs/nightly/backups/other.tar.gz/download', '/api/v1/jobs/nope/backups/x/download']) {
      const res = await get(path)
      expect(res.status, path).to.equal(404)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
    }
    const split = await get('/api/v1/jobs/nightly/backups/set-1/download')
    expect(split.status).to.equal(501)
    expect((await split.json()).detail).to.include('parts')
  })

  it('403 when allowBackupDownload is off, before touching the storage', async () => {
    const { get, engine } = await setup({ permissions: { allowBackupDownload: false } })
    let opened = false
    engine.openSnapshot = async () => {
      opened = true
      throw new Error('must not be called')
    }
    const res = await get('/api/v1/jobs/nightly/backups/nightly-20261121.tar.gz/download')
    expect(res.status).to.equal(403)
    expect(opened).to.equal(false)
  })
})
