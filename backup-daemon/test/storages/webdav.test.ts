import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { parseMultistatus } from '../../src/storages/webdav/parseMultistatus.js'
import { webdavStorage } from '../../src/storages/webdav/index.js'
import { runStorageSuite } from '../support/runStorageSuite.js'
import { startWebdavServer, type WebdavServer } from '../support/webdavServer.js'

const never = () => new AbortController().signal
const bytes = (text: string) => Readable.from([Buffer.from(text)])

describe('storages/webdav (against rclone serve webdav)', function () {
  this.timeout(60_000)
  let server: WebdavServer
  let run = 0
  before(async () => {
    server = await startWebdavServer()
  })
  after(() => server.stop())

  const create = (extra: Record<string, unknown> = {}) =>
    webdavStorage.create(
      webdavStorage.configSchema.parse({
        type: 'webdav',
        name: 'dav',
        url: server.url,
        username: server.username,
        password: server.password,
        path: `t${++run}`,
        ...extra,
      }),
    )

  describe('storage suite', () => {
    runStorageSuite({ newStorage: async () => create() })
  })

  it('creates a missing nested `path`, stores the exact bytes there, and removes emptied folders', async () => {
    const storage = create({ path: 'deep/er backups' })
    const body = randomBytes(3 * 1024 * 1024 + 7)
    await (await storage.write('job', Readable.from([body]), never())).commit('job/set.parts-2-2/a b.part-aaa')
    expect((await readFile(join(server.root, 'deep', 'er backups', 'job', 'set.parts-2-2', 'a b.part-aaa'))).equals(body)).to.equal(true)
    expect((await buffer(await storage.open('job/set.parts-2-2/a b.part-aaa'))).equals(body)).to.equal(true)
    await storage.delete('job/set.parts-2-2/a b.part-aaa')
    expect(await readdir(join(server.root, 'deep', 'er backups'))).to.deep.equal([])
  })

  it('never replaces an existing object on commit (MOVE with Overwrite: F)', async () => {
    const storage = create()
    await (await storage.write('job', bytes('first'), never())).commit('job/a')
    const second = await storage.write('job', bytes('second'), never())
    const err = await second.commit('job/a').catch((e: unknown) => e)
    expect(err).to.be.instanceOf(Error)
    expect((await buffer(await storage.open('job/a'))).toString()).to.equal('first')
    await second.discard()
  })

  it('refuses wrong credentials with 401, not retried, without echoing the password', async () => {
    const storage = create({ password: 'wrong-secret' })
    const err = (await storage.list('x/').catch((e: unknown) => e)) as Error
    expect(err.message).to.include('401')
    expect(err.message).not.to.include('wrong-secret')
    expect(storage.isRetryable(err)).to.equal(false)
  })

  it("config: credentials in the URL are refused, path defaults to the URL's folder, password is a secret", () => {
    expect(webdavStorage.configSchema.safeParse({ type: 'webdav', name: 'd', url: 'https://u:p@dav.example.com/' }).success).to.equal(false)
    expect(webdavStorage.configSchema.parse({ type: 'webdav', name: 'd', url: 'https://dav.example.com/' }).path).to.equal('')
    expect(webdavStorage.secretKeys).to.deep.equal(['password'])
  })

  it('parses multistatus answers with any namespace prefix and full-URL hrefs', () => {
    const xml = `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>https://dav.example.com/remote.php/dav/files/b/x%20y/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response><d:response><d:href>/remote.php/dav/files/b/x%20y/a.tar</d:href><d:propstat><d:prop><d:getcontentlength>42</d:getcontentlength><d:getlastmodified>Mon, 23 Nov 2026 21:34:04 GMT</d:getlastmodified><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat><d:propstat><d:prop><d:quota/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response></d:multistatus>`
    const entries = parseMultistatus(xml, 'https://dav.example.com/remote.php/dav/files/b/x%20y/')
    expect(entries.map((e) => [e.path, e.collection, e.size])).to.deep.equal([
      ['/remote.php/dav/files/b/x y/', true, 0],
      ['/remote.php/dav/files/b/x y/a.tar', false, 42],
    ])
    expect(entries[1]!.modified.toISOString()).to.equal('2026-11-23T21:34:04.000Z')
  })
})
