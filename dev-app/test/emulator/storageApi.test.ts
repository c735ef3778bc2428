import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { rawRequest } from './helpers/rawRequest.js'

describe('emulator: storage API', () => {
  let emulator: RunningEmulator
  let zoneUrl: string
  let auth: Record<string, string>

  before(async () => {
    emulator = await startEmulator({ storage: { zoneName: 'test-zone', accessKey: 'zone-password' } })
    zoneUrl = `${emulator.storage.endpoint}/${emulator.storage.zoneName}`
    auth = { AccessKey: emulator.storage.accessKey }
  })
  after(() => emulator.close())

  it('stores a file with PUT, serves it with GET and lists it', async () => {
    const body = Buffer.from('hello storage host')
    const put = await fetch(`${zoneUrl}/docs/hello.txt`, { method: 'PUT', headers: auth, body })
    expect(put.status).to.equal(201)
    expect(await put.json()).to.deep.equal({ HttpCode: 201, Message: 'File uploaded.' })

    const get = await fetch(`${zoneUrl}/docs/hello.txt`, { headers: auth })
    expect(get.status).to.equal(200)
    expect(get.headers.get('content-type')).to.equal('text/plain')
    expect(Buffer.from(await get.arrayBuffer()).equals(body)).to.equal(true)
    expect(await readFile(emulator.storedFilePath('docs/hello.txt') ?? '')).to.deep.equal(body)

    const list = await fetch(`${zoneUrl}/docs/`, { headers: auth })
    expect(list.status).to.equal(200)
    const entries = (await list.json()) as Record<string, unknown>[]
    expect(entries).to.have.length(1)
    const [entry] = entries
    expect(entry).to.include({ ObjectName: 'hello.txt', Length: body.length, IsDirectory: false, Path: '/test-zone/docs/', StorageZoneName: 'test-zone' })
    expect(entry?.Checksum).to.equal(createHash('sha256').update(body).digest('hex').toUpperCase())
    expect(entry?.Guid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(entry?.LastChanged).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/)
    expect(entry?.DateCreated).to.be.a('string')

    const root = (await (await fetch(`${zoneUrl}/`, { headers: auth })).json()) as Record<string, unknown>[]
    expect(root.find((e) => e.ObjectName === 'docs')).to.include({ IsDirectory: true, Path: '/test-zone/' })
  })

  it('answers byte ranges with 206 and unsatisfiable ones with 416', async () => {
    await fetch(`${zoneUrl}/range.bin`, { method: 'PUT', headers: auth, body: '0123456789' })
    const partial = await fetch(`${zoneUrl}/range.bin`, { headers: { ...auth, Range: 'bytes=2-5' } })
    expect(partial.status).to.equal(206)
    expect(partial.headers.get('content-range')).to.equal('bytes 2-5/10')
    expect(await partial.text()).to.equal('2345')
    const suffix = await fetch(`${zoneUrl}/range.bin`, { headers: { ...auth, Range: 'bytes=-3' } })
    expect(await suffix.text()).to.equal('789')
    const beyond = await fetch(`${zoneUrl}/range.bin`, { headers: { ...auth, Range: 'bytes=20-' } })
    expect(beyond.status).to.equal(416)
    expect(beyond.headers.get('content-range')).to.equal('bytes */10')
  })

  it('accepts a matching Checksum and refuses a wrong or malformed one without storing anything', async () => {
    const body = Buffer.from('checked bytes')
    const good = createHash('sha256').update(body).digest('hex').toUpperCase()
    expect((await fetch(`${zoneUrl}/checked.txt`, { method: 'PUT', headers: { ...auth, Checksum: good }, body })).status).to.equal(201)

    const wrong = createHash('sha256').update('other').digest('hex').toUpperCase()
    const refused = await fetch(`${zoneUrl}/refused.txt`, { method: 'PUT', headers: { ...auth, Checksum: wrong }, body })
    expect(refused.status).to.equal(400)
    expect(emulator.storedFilePath('refused.txt')).to.equal(undefined)
    const lower = await fetch(`${zoneUrl}/refused.txt`, { method: 'PUT', headers: { ...auth, Checksum: good.toLowerCase() }, body })
    expect(lower.status).to.equal(400)
    expect(emulator.storedFilePath('refused.txt')).to.equal(undefined)
  })

  it('refuses a missing or wrong AccessKey and another zone with 401', async () => {
    expect((await fetch(`${zoneUrl}/docs/hello.txt`)).status).to.equal(401)
    expect((await fetch(`${zoneUrl}/docs/hello.txt`, { headers: { AccessKey: 'nope' } })).status).to.equal(401)
    const put = await fetch(`${zoneUrl}/sneaky.txt`, { method: 'PUT', headers: { AccessKey: 'nope' }, body: 'x' })
    expect(put.status).to.equal(401)
    expect(emulator.storedFilePath('sneaky.txt')).to.equal(undefined)
    const otherZone = await fetch(`${emulator.storage.endpoint}/other-zone/docs/hello.txt`, { headers: auth })
    expect(otherZone.status).to.equal(401)
    expect(await otherZone.json()).to.deep.equal({ HttpCode: 401, Message: 'Unauthorized' })
  })

  it('answers 404 for a missing object', async () => {
    const res = await fetch(`${zoneUrl}/nothing/here.txt`, { headers: auth })
    expect(res.status).to.equal(404)
    expect(await res.json()).to.deep.equal({ HttpCode: 404, Message: 'Object Not Found' })
  })

  it('never lets a path escape the zone root', async () => {
    for (const path of [
      '/storage/test-zone/../escape.txt',
      '/storage/test-zone/a/%2e%2e/%2e%2e/escape.txt',
      '/storage/test-zone/a/..%2f..%2fescape.txt',
      '/storage/test-zone/a\\..\\x',
    ]) {
      const put = await rawRequest(emulator.url, 'PUT', path, auth, 'x')
      expect(put.status, path).to.equal(400)
      const get = await rawRequest(emulator.url, 'GET', path, auth)
      expect(get.status, path).to.equal(400)
    }
  })

  it('answers malformed percent-encoding with the ordinary refusals, never a 500', async () => {
    expect((await rawRequest(emulator.url, 'GET', '/storage/%zz/a.txt', auth)).status).to.equal(401)
    expect((await rawRequest(emulator.url, 'GET', '/storage/test-zone/%zz', auth)).status).to.equal(400)
    expect((await rawRequest(emulator.url, 'PUT', '/s3/%zz/a.txt', {}, 'x')).status).to.equal(404)
    expect((await rawRequest(emulator.url, 'GET', '/cdn/%zz/a.txt')).status).to.equal(404)
    expect((await rawRequest(emulator.url, 'GET', '/stream/library/1001/videos/%zz', { AccessKey: emulator.stream.apiKey })).status).to.equal(404)
    expect((await rawRequest(emulator.url, 'GET', '/stream-cdn/1001/%zz/original')).status).to.equal(404)
  })

  it('deletes a file, then a whole directory', async () => {
    await fetch(`${zoneUrl}/trash/a.txt`, { method: 'PUT', headers: auth, body: 'a' })
    await fetch(`${zoneUrl}/trash/sub/b.txt`, { method: 'PUT', headers: auth, body: 'b' })
    const del = await fetch(`${zoneUrl}/trash/a.txt`, { method: 'DELETE', headers: auth })
    expect(del.status).to.equal(200)
    expect((await fetch(`${zoneUrl}/trash/a.txt`, { headers: auth })).status).to.equal(404)
    expect((await fetch(`${zoneUrl}/trash/a.txt`, { method: 'DELETE', headers: auth })).status).to.equal(404)
    expect((await fetch(`${zoneUrl}/trash/`, { method: 'DELETE', headers: auth })).status).to.equal(200)
    expect(emulator.storedFilePath('trash/sub/b.txt')).to.equal(undefined)
    expect((await fetch(`${zoneUrl}/trash/a.txt`, { method: 'DELETE' })).status).to.equal(401)
  })

  it('leaves neither a partial object nor a temp file when an upload is cut off, and keeps the old version', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'emulator-abort-'))
    const local = await startEmulator({ dataDir })
    try {
      const url = new URL(`${local.storage.endpoint}/${local.storage.zoneName}/cut.bin`)
      expect((await fetch(url, { method: 'PUT', headers: { AccessKey: local.storage.accessKey }, body: 'old version' })).status).to.equal(201)
      await new Promise<void>((resolve) => {
        const req = request({
          host: url.hostname,
          port: url.port,
          method: 'PUT',
          path: url.pathname,
          headers: { AccessKey: local.storage.accessKey, 'Content-Length': String(10 * 1024 * 1024) },
        })
        req.on('error', () => resolve())
        req.write(Buffer.alloc(256 * 1024, 1), () => {
          // Give the server time to open its temp file, then drop the connection mid-body.
          setTimeout(() => {
            req.destroy()
            resolve()
          }, 100)
        })
      })
      // The server notices the abort asynchronously: wait until its temp folder is empty again.
      for (let i = 0; i < 1500 && (await readdir(path.join(dataDir, 'tmp'))).length > 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(await readdir(path.join(dataDir, 'tmp'))).to.deep.equal([])
      expect(await readFile(local.storedFilePath('cut.bin') ?? '', 'utf8')).to.equal('old version')
    } finally {
      await local.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('streams a large upload to disk and back', async () => {
    const size = 8 * 1024 * 1024 + 3
    const body = Buffer.alloc(size)
    for (let i = 0; i < size; i += 4096) body[i] = i & 0xff
    const checksum = createHash('sha256').update(body).digest('hex').toUpperCase()
    const put = await fetch(`${zoneUrl}/big/blob.bin`, { method: 'PUT', headers: { ...auth, Checksum: checksum }, body })
    expect(put.status).to.equal(201)
    const get = await fetch(`${zoneUrl}/big/blob.bin`, { headers: auth })
    expect(get.headers.get('content-length')).to.equal(String(size))
    expect(
      createHash('sha256')
        .update(Buffer.from(await get.arrayBuffer()))
        .digest('hex')
        .toUpperCase(),
    ).to.equal(checksum)
  })
})
