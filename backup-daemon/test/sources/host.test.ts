/**
 * The `host` source (the original's `bunny`) against the storage host emulator (`dev-app/emulator`,
 * a real HTTP server speaking the Storage API): a folder of a zone walked through its JSON listings,
 * mirrored with its excludes and archived; the incremental `syncPath`; downloads through signed
 * pull-zone URLs; and the shared source suite (cancelled while the downloads run).
 */
import { expect } from 'chai'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createArchive } from '../../src/archive/createArchive.js'
import { HostSource, parseHostDate } from '../../src/sources/host/HostSource.js'
import { hostSource } from '../../src/sources/host/index.js'
import { hostSourceSchema, type HostSourceConfig } from '../../src/sources/host/schema.js'
import type { SourceContext } from '../../src/sources/types.js'
import { startHostEmulator, type Emulator } from '../storages/support/hostEmulator.js'
import { readArchive, runSourceSuite, type ArchivedEntry } from '../support/runSourceSuite.js'

const never = () => new AbortController().signal
const baseTmp = tmpdir()
const zone = 'media-zone'
const accessKey = 'zone-Password-77'

let emulator: Emulator | undefined
/** What the zone holds under `site/`, minus excluded files: relative path → sha256. */
const expected = new Map<string, string>()
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')

async function put(path: string, body: Buffer): Promise<void> {
  const response = await fetch(`${emulator!.storage.endpoint}/${zone}/${path}`, {
    method: 'PUT',
    headers: { AccessKey: accessKey },
    body: new Uint8Array(body),
  })
  if (!response.ok) throw new Error(`PUT ${path}: ${response.status}`)
}

async function del(path: string): Promise<void> {
  const response = await fetch(`${emulator!.storage.endpoint}/${zone}/${path}`, { method: 'DELETE', headers: { AccessKey: accessKey } })
  if (!response.ok) throw new Error(`DELETE ${path}: ${response.status}`)
}

async function host(): Promise<Emulator> {
  if (emulator) return emulator
  emulator = await startHostEmulator({ storage: { zoneName: zone, accessKey }, pullZone: { tokenAuthKey: 'cdn-Token-key-5' } })
  const uploads: (() => Promise<void>)[] = []
  for (let i = 0; i < 150; i++) {
    const path = `images/${i % 6}/${i % 2 ? 'a' : 'b'}/img-${i}.jpg`
    const body = randomBytes(8000 + i * 11)
    expected.set(path, sha(body))
    uploads.push(() => put(`site/${path}`, body))
  }
  const big = randomBytes(2 << 20)
  expected.set('video/clip.mp4', sha(big))
  // Names that need encoding in a URL path.
  const odd = Buffer.from('spaces, umlauts and a hash')
  expected.set('docs/a file ü #1.txt', sha(odd))
  uploads.push(() => put(`site/docs/${encodeURIComponent('a file ü #1.txt')}`, odd))
  uploads.push(
    () => put('site/video/clip.mp4', big),
    () => put('site/cache/x.json', Buffer.from('{}')),
    () => put('site/images/0/a/thumbs/t.png', Buffer.from('thumb')),
    () => put('other/outside.txt', Buffer.from('not under the folder')),
  )
  for (let i = 0; i < uploads.length; i += 20) await Promise.all(uploads.slice(i, i + 20).map((upload) => upload()))
  return emulator
}

const config = async (overrides: Partial<HostSourceConfig> = {}): Promise<HostSourceConfig> => {
  const e = await host()
  return hostSourceSchema.parse({
    type: 'host',
    name: 'media',
    endpoint: e.storage.endpoint,
    zoneName: zone,
    accessKey,
    path: 'site',
    excludes: ['cache/', '**/thumbs/**'],
    ...overrides,
  })
}

function checkFiles(entries: ArchivedEntry[]): void {
  const files = new Map(entries.filter((e) => e.type === 'file').map((e) => [e.name.slice('media/'.length), sha(e.data)]))
  expect(files.size).to.equal(expected.size)
  for (const [path, hash] of expected) expect(files.get(path), path).to.equal(hash)
}

async function run(cfg: HostSourceConfig): Promise<{ entries: ArchivedEntry[]; logs: string }> {
  const logs: string[] = []
  const context: SourceContext = { log: (_l, m) => logs.push(m) }
  const entries = await readArchive(createArchive([new HostSource(cfg, context)], { compression: 'tar', signal: never() }))
  return { entries, logs: logs.join('\n') }
}

after(async () => {
  await emulator?.close()
  emulator = undefined
})

runSourceSuite({
  title: 'sources/host',
  setup: async () => void (await host()),
  newSource: async (context) => new HostSource(await config(), context),
  progress: /downloaded 152 object\(s\), 3\.\d MiB/,
  checkArchive: (entries) => checkFiles(entries),
  cancelOnLog: /object\(s\) to download/,
  failing: () => ({
    source: config({ zoneName: 'other-zone' }).then((c) => new HostSource(c, { log: () => {} })),
    message: /source "media": listing "site\/" of zone "other-zone" failed: storage host answered 401/,
  }),
  badCredentials: (context) => ({
    source: config({ accessKey: 'wrong-Zone-key-3' }).then((c) => new HostSource(c, context)),
    secret: 'wrong-Zone-key-3',
    message: /listing "site\/" of zone "media-zone" failed: storage host answered 401 .*Unauthorized/,
  }),
})

describe('sources/host (the storage host emulator)', function () {
  this.timeout(120_000)

  it('syncPath keeps a local copy: a second run fetches nothing, changes fetch only what changed', async () => {
    const syncPath = await mkdtemp(join(baseTmp, 'bd-host-sync-'))
    try {
      const first = await run(await config({ syncPath, extraParams: { workers: 5 } }))
      checkFiles(first.entries)
      expect(first.logs).to.match(/152 object\(s\) to download .* 0 up to date, 0 removed locally/)
      const second = await run(await config({ syncPath }))
      checkFiles(second.entries)
      expect(second.logs, second.logs).to.match(/0 object\(s\) to download \(0 B\), 152 up to date, 0 removed locally/)
      const changed = randomBytes(123)
      await put('site/images/0/b/img-0.jpg', changed)
      expected.set('images/0/b/img-0.jpg', sha(changed))
      await del('site/images/1/a/img-1.jpg')
      expected.delete('images/1/a/img-1.jpg')
      const third = await run(await config({ syncPath }))
      checkFiles(third.entries)
      expect(third.logs, third.logs).to.match(/1 object\(s\) to download .* 150 up to date, 1 removed locally/)
    } finally {
      await rm(syncPath, { recursive: true, force: true })
    }
  })

  it('downloads through token-signed pull-zone URLs when configured; a wrong token key fails', async () => {
    const e = await host()
    checkFiles((await run(await config({ pullZoneHostname: e.storage.cdnUrl, pullZoneTokenAuthKey: 'cdn-Token-key-5', pullZoneTokenTTL: 120 }))).entries)
    const err = (await run(await config({ pullZoneHostname: e.storage.cdnUrl, pullZoneTokenAuthKey: 'wrong-Cdn-key-1' })).catch((x: unknown) => x)) as Error
    expect(err.message).to.match(/downloading "site\/.*" failed: pull zone answered 403 to GET site\//)
    expect(err.message).not.to.include('wrong-Cdn-key-1').and.not.include('token=')
  })

  it('the whole zone when path is empty; a missing folder is an empty source', async () => {
    const whole = await run(await config({ path: '', excludes: [] }))
    const names = whole.entries.filter((x) => x.type === 'file').map((x) => x.name)
    expect(names).to.include('media/other/outside.txt').and.include('media/site/cache/x.json').and.include('media/site/video/clip.mp4')
    const empty = await run(await config({ path: 'no/such/folder' }))
    expect(empty.entries.map((x) => x.name)).to.deep.equal(['media'])
  })

  it('validates its config entry with defaults and marks the keys secret', () => {
    expect(hostSource.secretKeys).to.deep.equal(['accessKey', 'pullZoneTokenAuthKey'])
    const parsed = hostSourceSchema.parse({ type: 'host', name: 'h', zoneName: 'z', accessKey: 'k' })
    expect(parsed).to.deep.include({ endpoint: 'https://storage.bunnycdn.com', path: '', excludes: [], extraParams: { workers: 10 } })
    expect(hostSourceSchema.parse({ type: 'host', name: 'h', zoneName: 'z', accessKey: 'k', extraParams: { workers: 31 } }).extraParams.workers).to.equal(30)
    expect(hostSourceSchema.safeParse({ type: 'host', name: 'h', zoneName: 'z' }).success).to.equal(false)
    expect(hostSourceSchema.parse({ type: 'host', name: 'h', endpoint: 'la.storage.bunnycdn.com', zoneName: 'z', accessKey: 'k' }).endpoint).to.equal(
      'https://la.storage.bunnycdn.com',
    )
    expect(hostSourceSchema.safeParse({ type: 'host', name: 'h', endpoint: 'ftp://x', zoneName: 'z', accessKey: 'k' }).success).to.equal(false)
    expect(parseHostDate('2024-05-01T10:00:00.123').toISOString()).to.equal('2024-05-01T10:00:00.123Z')
  })
})
