/**
 * `payload storage-host check` and `payload storage-host migrate`, run as the README writes them
 * (`npx payload storage-host ...`) through Payload's own CLI on a config file, against the emulator: a
 * site whose images were on local disk moves them onto its zone, runs the command again after a failure
 * or damage, and then serves every file from the host.
 */
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import type { StorageHostPluginOptions } from '../src/types.js'
import { multipart } from './support/api.js'
import type { CliConfigInput } from './support/cliConfig.js'
import { mp4Bytes, pngBytes } from './support/media.js'
import { runStorageHostCli } from './support/storageHostCli.js'
import { emulatorOptions, startCms, type RunningCms } from './support/startCms.js'

const pluginRoot = fileURLToPath(new URL('..', import.meta.url))

/** `npx payload storage-host <args>` in the plugin's folder, on the test config with `input`. */
const storageHost = (args: string[], input: CliConfigInput) =>
  runStorageHostCli({ argv: ['npx', '--no-install', 'payload', 'storage-host', ...args], configPath: 'test/support/cliConfig.ts', cwd: pluginRoot }, input)

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('payload storage-host: the setup check and the migration from local disk (issue 41)', function () {
  this.timeout(240_000)
  let emu: RunningEmulator
  let dataDir: string
  const secret = 'cli-test-secret'

  before(async () => {
    emu = await startEmulator()
    dataDir = await mkdtemp(join(tmpdir(), 'plugin-storage-cli-'))
  })
  after(async () => {
    await emu?.close()
    if (dataDir) await rm(dataDir, { force: true, recursive: true })
  })

  const objectOnZone = async (key: string): Promise<Buffer | undefined> => {
    const res = await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/${key}`, { headers: { AccessKey: emu.storage.accessKey } })
    return res.ok ? Buffer.from(await res.arrayBuffer()) : undefined
  }

  describe('check', () => {
    let cms: RunningCms
    before(async () => {
      cms = await startCms(emulatorOptions(emu))
    })
    after(() => cms?.close())

    it('says every zone, CDN, library and the webhook answer, and exits 0', async () => {
      const run = await storageHost(['check'], { dataDir, options: emulatorOptions(emu), secret, serverURL: cms.url })
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.stdout).to.match(new RegExp(`^ok {4}storage zone "${emu.storage.zoneName}" \\(media\\): listed and written`, 'm'))
      expect(run.stdout).to.match(/^ok {4}storage zone .*: its CDN .* serves the zone’s files$/m)
      expect(run.stdout).to.match(new RegExp(`^ok {4}video library ${emu.stream.libraryId} \\(locked-videos, videos\\): listed through`, 'm'))
      expect(run.stdout).to.match(/^ok {4}video library .*: the webhook .*\/api\/storage-host\/stream\/webhook answers/m)
      expect(run.stdout).to.include('everything the plugin needs answers')
      // The probe is cleaned up.
      expect(await objectOnZone('.storage-host-check/')).to.satisfy((b?: Buffer) => b === undefined || b.toString() === '[]')
    })

    it('names each wrong key, CDN hostname and the missing serverURL in one line with what to set, exits 1, and prints no key', async () => {
      const good = emulatorOptions(emu)
      const wrongKey = 'wrong-zone-password-12345'
      const options: StorageHostPluginOptions = {
        ...good,
        collections: { ...good.collections, 'plain-files': { target: 'storage', zone: { ...good.storage!, accessKey: wrongKey } } },
        // The stream pull zone does not serve the storage zone's files.
        storage: { ...good.storage!, cdnUrl: emu.stream.cdnUrl },
      }
      const run = await storageHost(['check'], { dataDir, options, secret })
      expect(run.code, run.stderr + run.stdout).to.equal(1)
      const lines = run.stdout.split('\n')
      expect(lines).to.satisfy((all: string[]) =>
        all.some((l) => /^fail {2}storage zone .*\(plain-files\): .*refused the access key: check zoneName and accessKey/.test(l)),
      )
      expect(lines).to.satisfy((all: string[]) =>
        all.some((l) => /^fail {2}storage zone .*\(media\): its CDN .* is cdnUrl the pull zone of this zone\?$/.test(l)),
      )
      expect(lines).to.satisfy((all: string[]) => all.some((l) => /^fail {2}video library .*: serverURL is not set/.test(l)))
      expect(run.stdout).to.match(/^3 problem\(s\) found$/m)
      expect(run.stdout + run.stderr).not.to.include(wrongKey)
      expect(run.stdout + run.stderr).not.to.include(emu.storage.accessKey)
    })
  })

  describe('check of a pull zone with token authentication', () => {
    let signed: RunningEmulator
    before(async () => {
      signed = await startEmulator({ pullZone: { tokenAuthKey: 'pull-zone-token-key' } })
    })
    after(() => signed?.close())

    it('reads the probe back through a signed URL with the right key, and says a wrong key is refused', async () => {
      const options = (key: string): StorageHostPluginOptions => {
        const base = emulatorOptions(signed)
        return { ...base, collections: { media: 'storage' }, storage: { ...base.storage!, tokenAuth: { key } } }
      }
      const right = await storageHost(['check'], { dataDir, options: options('pull-zone-token-key'), secret })
      expect(right.code, right.stderr + right.stdout).to.equal(0)
      expect(right.stdout).to.match(/^ok {4}storage zone .*: its CDN .* serves the zone’s files \(signed\)$/m)
      const wrong = await storageHost(['check'], { dataDir, options: options('not-the-key'), secret })
      expect(wrong.code).to.equal(1)
      expect(wrong.stdout).to.match(/^fail {2}storage zone .*: its CDN .* refused a signed URL \(403\): check tokenAuth.key/m)
      expect(wrong.stdout + wrong.stderr).not.to.include('not-the-key')
    })
  })

  describe('migrate --collection media', () => {
    // The site as it was: images on local disk (the plugin disabled keeps Payload's local storage).
    const localOptions = () => emulatorOptions(emu, { disabled: true })
    // The site with the plugin: its images in the zone under `uploads/`.
    const hostedOptions = (): StorageHostPluginOptions => ({ ...emulatorOptions(emu), collections: { media: { prefix: 'uploads', target: 'storage' } } })
    const names: string[] = []
    const staticDir = () => join(dataDir, 'media')
    const input = (): CliConfigInput => ({ dataDir, options: hostedOptions(), secret })

    before(async () => {
      const cms = await startCms(localOptions(), { dataDir, secret })
      try {
        for (const [i, width] of [120, 64, 200].entries()) {
          const res = await cms.fetch('/api/media', {
            body: multipart(await pngBytes(width, 50 + i), `photo-${i}.png`, 'image/png', { alt: `photo ${i}` }),
            method: 'POST',
          })
          expect(res.status, await res.clone().text()).to.equal(201)
          const { doc } = (await res.json()) as { doc: { filename: string; sizes: { thumbnail: { filename: string } } } }
          names.push(doc.filename, doc.sizes.thumbnail.filename)
        }
      } finally {
        await cms.close()
      }
      expect((await readdir(staticDir())).sort()).to.deep.equal([...names].sort())
    })

    it('refuses a missing --collection, a collection not on the host and an unknown command with the usage, exit 1', async () => {
      const missing = await storageHost(['migrate'], input())
      expect(missing.code).to.equal(1)
      expect(missing.stderr).to.include('storage-host: migrate needs --collection <slug>').and.include('Usage:')
      const notHosted = await storageHost(['migrate', '--collection', 'posts'], input())
      expect(notHosted.code).to.equal(1)
      expect(notHosted.stderr).to.include('collection "posts" is not on the storage host')
      const unknown = await storageHost(['nonsense'], input())
      expect(unknown.code).to.equal(1)
      expect(unknown.stderr).to.include('unknown command "nonsense"')
    })

    it('--dry-run says what it would upload and writes nothing', async () => {
      const run = await storageHost(['migrate', '--collection', 'media', '--dry-run'], input())
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.stdout.match(/would upload uploads\//g)).to.have.length(names.length)
      for (const name of names) expect(await objectOnZone(`uploads/${name}`), name).to.equal(undefined)
    })

    it('moves every file and size byte-exact, records the folder, and the site then serves them from the host', async () => {
      const run = await storageHost(['migrate', '--collection', 'media'], input())
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.stdout).to.match(/^\[3\/3\] document \d+ "photo-2\.png": 2 file\(s\) uploaded, folder recorded$/m)
      expect(run.stdout).to.include(`3 document(s): ${names.length} file(s) uploaded`).and.include('3 document(s) rewritten, 0 failed')
      for (const name of names) {
        expect(sha256((await objectOnZone(`uploads/${name}`))!), name).to.equal(sha256(await readFile(join(staticDir(), name))))
      }
      // The local files are no longer needed: the hosted site serves the zone's copies.
      const local = new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(staticDir(), n))] as const)))
      await rm(staticDir(), { force: true, recursive: true })
      // On the schema the site has (as in production): the hosted options differ only in `prefix`'s default,
      // which drizzle-kit's SQLite dev push would rebuild the table for, failing on its own index.
      process.env.PAYLOAD_MIGRATING = 'true'
      const cms = await startCms(hostedOptions(), { dataDir, secret }).finally(() => delete process.env.PAYLOAD_MIGRATING)
      try {
        const { docs } = (await (await cms.fetch('/api/media?sort=id')).json()) as {
          docs: Array<{ prefix: string; url: string; sizes: { thumbnail: { url: string } } }>
        }
        expect(docs.map((d) => d.prefix)).to.deep.equal(['uploads', 'uploads', 'uploads'])
        for (const [i, doc] of docs.entries()) {
          for (const [url, name] of [
            [doc.url, names[2 * i]!],
            [doc.sizes.thumbnail.url, names[2 * i + 1]!],
          ] as const) {
            const res = await cms.fetch(new URL(url, cms.url).pathname + new URL(url, cms.url).search)
            expect(res.status, url).to.equal(200)
            expect(sha256(Buffer.from(await res.arrayBuffer())), url).to.equal(sha256(local.get(name)!))
          }
        }
      } finally {
        await cms.close()
      }
      // Put back for the next test, as it was on disk.
      await mkdir(staticDir(), { recursive: true })
      for (const [name, bytes] of local) await writeFile(join(staticDir(), name), bytes)
    })

    it('run again, sends only what is missing or differs on the zone; a file on neither side fails its line and exit 1', async () => {
      const [first, second, third] = names
      // Damage on the zone: one object gone, one with other bytes; one file gone from both sides.
      await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/uploads/${first}`, { headers: { AccessKey: emu.storage.accessKey }, method: 'DELETE' })
      await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/uploads/${second}`, {
        body: 'not the thumbnail',
        headers: { AccessKey: emu.storage.accessKey },
        method: 'PUT',
      })
      await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/uploads/${third}`, { headers: { AccessKey: emu.storage.accessKey }, method: 'DELETE' })
      await unlink(join(staticDir(), third!))

      const run = await storageHost(['migrate', '--collection', 'media'], input())
      expect(run.code, run.stderr + run.stdout).to.equal(1)
      expect(run.stdout)
        .to.include(`3 document(s): 2 file(s) uploaded`)
        .and.include(`${names.length - 3} already on the zone`)
      expect(run.stdout).to.include('0 document(s) rewritten, 1 failed')
      expect(run.stdout).to.match(new RegExp(`failed: document \\d+: "${third!.replace('.', '\\.')}" is neither in .* nor on the zone`))
      for (const name of [first!, second!]) {
        expect(sha256((await objectOnZone(`uploads/${name}`))!), name).to.equal(sha256(await readFile(join(staticDir(), name))))
      }
    })
  })

  describe('migrate --collection videos (a stream collection)', () => {
    const localOptions = () => emulatorOptions(emu, { disabled: true })
    const input = (): CliConfigInput => ({ dataDir, options: emulatorOptions(emu), secret })
    const files = new Map<number, Buffer>()
    const libraryVideos = () => emu.videos().filter((v) => / \[videos \d+\]$/.test(v.title))

    before(async () => {
      const cms = await startCms(localOptions(), { dataDir, secret })
      try {
        for (const [i, size] of [96 * 1024, 160 * 1024].entries()) {
          const bytes = mp4Bytes(size)
          const res = await cms.fetch('/api/videos', { body: multipart(bytes, `clip-${i}.mp4`, 'video/mp4', { title: `clip ${i}` }), method: 'POST' })
          expect(res.status, await res.clone().text()).to.equal(201)
          files.set(((await res.json()) as { doc: { id: number } }).doc.id, bytes)
        }
      } finally {
        await cms.close()
      }
    })

    const boundDocs = async () => {
      process.env.PAYLOAD_MIGRATING = 'true'
      const cms = await startCms(emulatorOptions(emu), { dataDir, secret }).finally(() => delete process.env.PAYLOAD_MIGRATING)
      try {
        const { docs } = (await (await cms.fetch('/api/videos?sort=id&depth=0')).json()) as {
          docs: Array<{ id: number; hostData?: { stream?: { videoId?: string; libraryId?: number } } }>
        }
        return docs
      } finally {
        await cms.close()
      }
    }

    it('--dry-run says what it would upload and creates no video', async () => {
      const run = await storageHost(['migrate', '--collection', 'videos', '--dry-run'], input())
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.stdout.match(/: would upload [\d.]+ MiB$/gm)).to.have.length(2)
      expect(libraryVideos()).to.deep.equal([])
    })

    it('uploads each file into the library byte-exact and binds its document; a video a killed run created is used, not made twice', async () => {
      const [firstId] = [...files.keys()]
      // What a run killed after creating the first video leaves: a video with the document's title and no bytes.
      const created = await fetch(`${emu.stream.apiBase}/library/${emu.stream.libraryId}/videos`, {
        body: JSON.stringify({ title: `clip-0.mp4 [videos ${firstId}]` }),
        headers: { AccessKey: emu.stream.apiKey, 'Content-Type': 'application/json' },
        method: 'POST',
      })
      const left = ((await created.json()) as { guid: string }).guid

      const run = await storageHost(['migrate', '--collection', 'videos'], input())
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.stdout).to.match(new RegExp(`^\\[1/2\\] document ${firstId} "clip-0\\.mp4": uploaded \\(0\\.1 MiB\\) as video ${left}$`, 'm'))
      expect(run.stdout).to.include('2 document(s): 2 video(s) uploaded').and.include('2 document(s) bound, 0 failed')
      expect(run.stdout + run.stderr).not.to.include(emu.stream.apiKey)
      expect(libraryVideos()).to.have.length(2)

      const docs = await boundDocs()
      expect(docs.map((d) => d.hostData?.stream?.videoId)[0]).to.equal(left)
      for (const doc of docs) {
        const guid = doc.hostData?.stream?.videoId
        expect(guid, `document ${doc.id} is bound`).to.be.a('string')
        expect(doc.hostData?.stream?.libraryId).to.equal(emu.stream.libraryId)
        await emu.whenEncoded(guid!)
        // The library keeps the original: its bytes are the local file's.
        const original = await fetch(`${emu.stream.cdnUrl}/${guid}/original`)
        expect(sha256(Buffer.from(await original.arrayBuffer())), `video of document ${doc.id}`).to.equal(sha256(files.get(doc.id)!))
      }
    })

    it('run again, leaves every bound document as it is and sends nothing', async () => {
      const run = await storageHost(['migrate', '--collection', 'videos'], input())
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.stdout.match(/: already bound to video /g)).to.have.length(2)
      expect(run.stdout).to.include('2 document(s): 0 video(s) uploaded (0.0 MiB), 2 already in the library, 0 document(s) bound, 0 failed')
      expect(libraryVideos()).to.have.length(2)
    })
  })
})
