/**
 * The `s3` source against s3rver (a real S3-compatible HTTP server, in process): a prefix of a bucket
 * mirrored and archived with its excludes, parallel downloads, the incremental `syncPath` (only new
 * or changed objects fetched, removed ones removed), and the shared source suite (cancelled while
 * the downloads run).
 */
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { expect } from 'chai'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { S3Source } from '../../src/sources/s3/S3Source.js'
import { s3Source } from '../../src/sources/s3/index.js'
import { s3SourceSchema, type S3SourceConfig } from '../../src/sources/s3/schema.js'
import { excludeMatcher } from '../../src/sources/support/excludeMatcher.js'
import { safeRelativePath } from '../../src/sources/support/mirrorRemote.js'
import type { SourceContext } from '../../src/sources/types.js'
import { startS3rver, type RunningS3 } from '../storages/support/s3rver.js'
import { readArchive, runSourceSuite, type ArchivedEntry } from '../support/runSourceSuite.js'
import { createArchive } from '../../src/archive/createArchive.js'

const never = () => new AbortController().signal
const baseTmp = tmpdir()

let s3: RunningS3 | undefined
let client: S3Client
/** What the bucket holds under `site/`, minus the excluded keys: relative path → sha256. */
const expected = new Map<string, string>()
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')

async function put(key: string, body: Buffer): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: s3!.bucket, Key: key, Body: body }))
}

async function bucket(): Promise<RunningS3> {
  if (s3) return s3
  s3 = await startS3rver('source-bucket')
  client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } })
  const uploads: (() => Promise<void>)[] = []
  for (let i = 0; i < 240; i++) {
    const path = `pages/${i % 12}/page-${i}.html`
    const body = randomBytes(4096 + i * 37)
    expected.set(path, sha(body))
    uploads.push(() => put(`site/${path}`, body))
  }
  const big = randomBytes(3 << 20)
  expected.set('media/big.bin', sha(big))
  const odd = Buffer.from('a key with a space and an umlaut')
  expected.set('docs/a file ü.txt', sha(odd))
  uploads.push(() => put('site/docs/a file ü.txt', odd))
  uploads.push(() => put('site/media/big.bin', big))
  uploads.push(
    () => put('site/cache/a.json', Buffer.from('{}')),
    () => put('site/pages/draft.tmp', Buffer.from('tmp')),
    () => put('site/empty/', Buffer.alloc(0)),
    () => put('other/outside.txt', Buffer.from('not under the prefix')),
  )
  // In batches: s3rver on a loaded machine prefers a few at a time.
  for (let i = 0; i < uploads.length; i += 25) await Promise.all(uploads.slice(i, i + 25).map((upload) => upload()))
  return s3
}

const config = async (overrides: Partial<S3SourceConfig> = {}): Promise<S3SourceConfig> => {
  const s = await bucket()
  return s3SourceSchema.parse({
    type: 's3',
    name: 'site',
    bucket: s.bucket,
    endpoint: s.endpoint,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    path: '/site/',
    excludes: ['cache/', '*.tmp'],
    ...overrides,
  })
}

function checkFiles(entries: ArchivedEntry[], root = 'site'): void {
  const files = new Map(entries.filter((e) => e.type === 'file').map((e) => [e.name.slice(root.length + 1), sha(e.data)]))
  expect(files.size).to.equal(expected.size)
  for (const [path, hash] of expected) expect(files.get(path), path).to.equal(hash)
}

after(async () => {
  await s3?.close()
  s3 = undefined
})

runSourceSuite({
  title: 'sources/s3',
  setup: async () => void (await bucket()),
  newSource: async (context) => new S3Source(await config(), context),
  progress: /downloaded 242 object\(s\), 4\.\d MiB/,
  checkArchive: (entries) => checkFiles(entries),
  cancelOnLog: /object\(s\) to download/,
  failing: () => ({
    source: config({ bucket: 'no-such-bucket' }).then((c) => new S3Source(c, { log: () => {} })),
    message: /source "site": listing bucket "no-such-bucket", prefix "site\/" failed: NoSuchBucket/,
  }),
  // s3rver knows one key pair and checks the key id (not the signature): both are wrong here.
  badCredentials: (context) => ({
    source: config({ accessKeyId: 'WRONGKEYID', secretAccessKey: 'wrong-S3-secret-1' }).then((c) => new S3Source(c, context)),
    secret: 'wrong-S3-secret-1',
    message: /listing bucket "source-bucket".* failed: InvalidAccessKeyId/,
  }),
})

describe('sources/s3 (s3rver)', function () {
  this.timeout(120_000)

  it('syncPath keeps a local copy: a second run fetches nothing, changes fetch only what changed', async () => {
    const syncPath = await mkdtemp(join(baseTmp, 'bd-s3-sync-'))
    try {
      const run = async () => {
        const logs: string[] = []
        const context: SourceContext = { log: (_l, m) => logs.push(m) }
        const entries = await readArchive(
          createArchive([new S3Source(await config({ syncPath, extraParams: { workers: 4 } }), context)], { compression: 'tar', signal: never() }),
        )
        return { entries, logs: logs.join('\n') }
      }
      const first = await run()
      checkFiles(first.entries)
      expect(first.logs).to.match(/242 object\(s\) to download .* 0 up to date, 0 removed locally/)
      const second = await run()
      checkFiles(second.entries)
      expect(second.logs).to.match(/0 object\(s\) to download \(0 B\), 242 up to date, 0 removed locally/)

      // Changed (new size), removed, added remotely; and a local copy made older than its object.
      const changed = randomBytes(999)
      await put('site/pages/0/page-0.html', changed)
      expected.set('pages/0/page-0.html', sha(changed))
      await client.send(new DeleteObjectCommand({ Bucket: s3!.bucket, Key: 'site/pages/1/page-1.html' }))
      expected.delete('pages/1/page-1.html')
      const added = randomBytes(10)
      await put('site/new/added.txt', added)
      expected.set('new/added.txt', sha(added))
      await utimes(join(syncPath, 'pages/2/page-2.html'), new Date(1_000_000), new Date(1_000_000))
      // A partial file left by a crash is removed too.
      await writeFile(join(syncPath, 'pages/.bd-partial-0123456789ab'), 'half')

      const third = await run()
      checkFiles(third.entries)
      expect(third.logs, third.logs).to.match(/3 object\(s\) to download .* 239 up to date, 2 removed locally/)
      expect(await readdir(join(syncPath, 'pages'))).not.to.include('.bd-partial-0123456789ab')
      await stat(join(syncPath, 'pages/1/page-1.html')).then(
        () => expect.fail('removed object still in syncPath'),
        () => {},
      )
      expect(sha(await readFile(join(syncPath, 'pages/0/page-0.html')))).to.equal(sha(changed))
    } finally {
      await rm(syncPath, { recursive: true, force: true })
    }
  })

  it('a cancel while downloading into syncPath leaves no partial file there, and the next run completes it', async () => {
    const syncPath = await mkdtemp(join(baseTmp, 'bd-s3-cancel-'))
    try {
      const controller = new AbortController()
      const reason = new Error('cancelled while downloading')
      let downloaded = 0
      const context: SourceContext = {
        log: (_l, m) => {
          // Cancel a turn after the downloads started.
          if (/object\(s\) to download/.test(m)) setImmediate(() => controller.abort(reason))
          if (/^source "site": downloaded/.test(m)) downloaded++
        },
      }
      const err = await readArchive(
        createArchive([new S3Source(await config({ syncPath, extraParams: { workers: 8 } }), context)], { compression: 'tar', signal: controller.signal }),
      ).catch((e: unknown) => e as Error)
      expect(err).to.be.instanceOf(Error)
      expect(downloaded, 'the run did not finish its downloads').to.equal(0)
      const partials: string[] = []
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          if (entry.isDirectory()) await walk(join(dir, entry.name))
          else if (entry.name.startsWith('.bd-partial-')) partials.push(join(dir, entry.name))
        }
      }
      // Cleanup of an aborted download runs as its stream closes: give it the turn it needs.
      for (let attempt = 0; attempt < 50; attempt++) {
        partials.length = 0
        await walk(syncPath)
        if (partials.length === 0) break
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(partials).to.deep.equal([])
      checkFiles(await readArchive(createArchive([new S3Source(await config({ syncPath }), { log: () => {} })], { compression: 'tar', signal: never() })))
    } finally {
      await rm(syncPath, { recursive: true, force: true })
    }
  })

  it('one worker gives the same archive; an unreachable endpoint fails clearly', async () => {
    checkFiles(
      await readArchive(
        createArchive([new S3Source(await config({ extraParams: { workers: 1 } }), { log: () => {} })], { compression: 'tar', signal: never() }),
      ),
    )
    const err = (await readArchive(
      createArchive([new S3Source(await config({ endpoint: 'http://127.0.0.1:1' }), { log: () => {} })], { compression: 'tar', signal: never() }),
    ).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/source "site": listing bucket .* failed: .*ECONNREFUSED/)
  })

  it('validates its config entry with defaults (workers 10, at most 30) and marks the keys secret', () => {
    expect(s3Source.secretKeys).to.deep.equal(['accessKeyId', 'secretAccessKey'])
    const parsed = s3SourceSchema.parse({ type: 's3', name: 'b', bucket: 'x' })
    expect(parsed).to.deep.include({ region: 'us-east-1', path: '', excludes: [], usePathStyle: false, extraParams: { workers: 10 } })
    expect(s3SourceSchema.parse({ type: 's3', name: 'b', bucket: 'x', extraParams: { workers: '40' } }).extraParams.workers).to.equal(30)
    expect(s3SourceSchema.safeParse({ type: 's3', name: 'b', bucket: 'x', extraParams: { workers: 0 } }).success).to.equal(false)
    expect(s3SourceSchema.safeParse({ type: 's3', name: 'b', bucket: 'x', accessKeyId: 'only-one' }).success).to.equal(false)
  })

  it("excludes follow the original's rules; unsafe keys are never file names", () => {
    const excluded = excludeMatcher(['cache/', '*.tmp', '**/node_modules/**', 'secret', 'logs/*.log'])
    const cases: [string, boolean][] = [
      ['cache/a.json', true],
      ['cache', true],
      ['sub/cache/a.json', false],
      ['a/b/draft.tmp', true],
      ['x/node_modules/y/z.js', true],
      ['node_modules/z.js', true],
      ['deep/secret/file', true],
      ['deep/secret', true],
      ['secretive.txt', false],
      ['logs/a.log', true],
      ['logs/old/a.log', false],
      ['pages/index.html', false],
    ]
    for (const [path, result] of cases) expect(excluded(path), path).to.equal(result)
    for (const bad of ['../evil', 'a/../../b', '/abs', 'a//b', 'a/./b', 'a\0b', '']) expect(safeRelativePath(bad), bad).to.equal(false)
    for (const good of ['a/b c/ü.txt', 'a\\b', 'back\\..\\slash']) expect(safeRelativePath(good), good).to.equal(true)
  })
})
