/**
 * `tar/tarWriter.ts` through `createArchive` and the local source: archives restore byte for byte
 * with GNU tar (names over 100 and 255 bytes, non-ASCII names, long link targets, empty files, files at
 * 512-byte boundaries, streamed large files, folders, modes, mtimes), read back the same through our own
 * reader (`snapshot/forEachTarEntry.ts`), and a cancel mid-run rejects and leaves no descriptor open.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, readdirSync } from 'node:fs'
import { chmod, lstat, mkdir, readFile, readlink, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createArchive } from '../../src/archive/createArchive.js'
import { TarWriter } from '../../src/tar/tarWriter.js'
import { forEachTarEntry } from '../../src/tar/forEachTarEntry.js'
import { LocalSource } from '../../src/sources/local/index.js'
import type { Source, SourceEntry } from '../../src/sources/types.js'
import { tempDir } from '../engine/helpers.js'
import { openDescriptorsUnder } from '../support/openDescriptors.js'
import { oneByOne } from '../../src/sources/support/oneByOne.js'

const long100 = 'd'.repeat(60) + '/' + 'e'.repeat(60)
const long255 = ['f'.repeat(90), 'g'.repeat(90), 'h'.repeat(90)].join('/')
/** Files (relative path -> bytes); sizes around the 512-byte block and the 256 KiB small-file limit. */
function files(): Record<string, Buffer> {
  return {
    empty: Buffer.alloc(0),
    one: Buffer.from('x'),
    b511: randomBytes(511),
    b512: randomBytes(512),
    b513: randomBytes(513),
    b1024: randomBytes(1024),
    'small-limit': randomBytes(256 * 1024),
    'streamed.bin': randomBytes(256 * 1024 + 1),
    'large.bin': randomBytes(3 * 1024 * 1024 + 7),
    [`${long100}/file`]: Buffer.from('over 100 bytes'),
    [`${long255}/${'i'.repeat(40)}`]: Buffer.from('over 255 bytes'),
    ['ñandú/日本語 ファイル.txt']: Buffer.from('non-ASCII'),
    [`${'j'.repeat(150)}`]: Buffer.from('one name of 150 bytes, no slash to split at'),
  }
}

async function makeTree(root: string): Promise<Record<string, Buffer>> {
  const content = files()
  for (const [path, bytes] of Object.entries(content)) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), bytes)
  }
  await chmod(join(root, 'b511'), 0o600)
  await chmod(join(root, 'b513'), 0o755)
  await chmod(join(root, 'ñandú'), 0o750)
  await utimes(join(root, 'b512'), new Date('2001-02-03T04:05:06Z'), new Date('2001-02-03T04:05:06Z'))
  await utimes(join(root, 'large.bin'), new Date('2020-06-01T00:00:00Z'), new Date('2020-06-01T00:00:00Z'))
  await symlink('b512', join(root, 'link'))
  await symlink('../'.repeat(40) + 'k'.repeat(120), join(root, 'long-link'))
  await symlink('ünïcode-target', join(root, 'ünïcode-link'))
  await mkdir(join(root, 'empty-folder'))
  return content
}

async function writeArchive(sources: Source[], out: string): Promise<void> {
  await pipeline(createArchive(sources, { compression: 'tar', signal: new AbortController().signal }), createWriteStream(out))
}

describe('tar/tarWriter: archives GNU tar restores byte for byte', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir('tar-writer-')))
  afterEach(() => tmp.remove())

  it('restores names over 100 and 255 bytes, non-ASCII names, links, empty files, 512-byte boundaries, modes and mtimes', async () => {
    const root = join(tmp.dir, 'tree')
    const content = await makeTree(root)
    const archive = join(tmp.dir, 'out.tar')
    await writeArchive([new LocalSource('src', root, [], { log: () => {} })], archive)
    expect((await lstat(archive)).size % 512, 'whole blocks').to.equal(0)
    const restored = join(tmp.dir, 'restored')
    await mkdir(restored)
    execFileSync('tar', ['-xf', archive, '-C', restored])
    for (const [path, bytes] of Object.entries(content)) {
      expect((await readFile(join(restored, 'src', path))).equals(bytes), path).to.equal(true)
    }
    // Every entry, compared field by field with the tree (mode, mtime in seconds, type, link target).
    const walk = async (dir: string, rel = ''): Promise<string[]> => {
      const out: string[] = []
      for (const name of readdirSync(join(dir, rel)).sort()) {
        const path = rel ? `${rel}/${name}` : name
        out.push(path)
        if ((await lstat(join(dir, path))).isDirectory()) out.push(...(await walk(dir, path)))
      }
      return out
    }
    const original = await walk(root)
    expect(await walk(join(restored, 'src'))).to.deep.equal(original)
    for (const path of original) {
      const a = await lstat(join(root, path))
      const b = await lstat(join(restored, 'src', path))
      expect(b.mode.toString(8), `${path} mode`).to.equal(a.mode.toString(8))
      if (!a.isSymbolicLink()) expect(Math.floor(b.mtimeMs / 1000), `${path} mtime`).to.equal(Math.floor(a.mtimeMs / 1000))
      if (a.isSymbolicLink()) expect(await readlink(join(restored, 'src', path)), path).to.equal(await readlink(join(root, path)))
    }
    // GNU tar's own listing agrees on the long and non-ASCII names.
    const listing = execFileSync('tar', ['-tf', archive], { encoding: 'utf8' }).split('\n')
    expect(listing).to.include.members([`src/${long255}/${'i'.repeat(40)}`, 'src/ñandú/日本語 ファイル.txt', 'src/ünïcode-link'])
  })

  it('stores the second the file system holds, also for a time a hair before the next second (x.9996 s)', async () => {
    const root = join(tmp.dir, 'tree')
    await mkdir(root)
    const seconds = 1_795_499_467
    for (const [name, fraction] of [
      ['late', 0.9996],
      ['early', 0.0004],
      ['half', 0.5],
    ] as const) {
      await writeFile(join(root, name), name)
      await utimes(join(root, name), seconds, seconds + fraction)
    }
    const archive = join(tmp.dir, 'out.tar')
    await writeArchive([new LocalSource('src', root, [], { log: () => {} })], archive)
    const mtimes = new Map<string, number>()
    const { createReadStream } = await import('node:fs')
    await forEachTarEntry(createReadStream(archive), async (header, entry) => {
      entry.resume()
      mtimes.set(header.name, header.mtime!.getTime() / 1000)
    })
    expect(Object.fromEntries(['late', 'early', 'half'].map((name) => [name, mtimes.get(`src/${name}`)]))).to.deep.equal({
      late: seconds,
      early: seconds,
      half: seconds,
    })
  })

  it('is read back entry for entry by our own reader (forEachTarEntry), PAX names and sizes included', async () => {
    const root = join(tmp.dir, 'tree')
    const content = await makeTree(root)
    const archive = join(tmp.dir, 'out.tar')
    await writeArchive([new LocalSource('src', root, [], { log: () => {} })], archive)
    const seen = new Map<string, { type: string; size: number; bytes: Buffer; linkname?: string | null }>()
    const { createReadStream } = await import('node:fs')
    await forEachTarEntry(createReadStream(archive), async (header, entry) => {
      const chunks: Buffer[] = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      seen.set(header.name, { type: header.type ?? '', size: header.size ?? 0, bytes: Buffer.concat(chunks), linkname: header.linkname })
    })
    for (const [path, bytes] of Object.entries(content)) {
      const got = seen.get(`src/${path}`)
      expect(got, path).to.not.equal(undefined)
      expect(got!.size, path).to.equal(bytes.length)
      expect(got!.bytes.equals(bytes), path).to.equal(true)
    }
    expect(seen.get('src/long-link')?.linkname).to.equal('../'.repeat(40) + 'k'.repeat(120))
    expect(seen.get('src/ünïcode-link')?.linkname).to.equal('ünïcode-target')
    expect(seen.get('src/empty-folder')?.type).to.equal('directory')
  })

  it('a size over 8 GiB goes into a PAX size record and a base-256 size field (the header GNU tar reads)', () => {
    const tar = new TarWriter(4096)
    const size = 9 * 1024 ** 3 + 5
    tar.header({ name: 'huge', type: 'file', mode: 0o644, mtime: new Date(0) }, size)
    tar.flush()
    const all = Buffer.concat(tar.take())
    expect(all.length).to.equal(3 * 512)
    const pax = all.subarray(512, 1024).toString('latin1')
    expect(pax).to.contain(`size=${size}\n`)
    const field = all.subarray(1024 + 124, 1024 + 136)
    expect(field[0]).to.equal(0x80)
    expect(field.subarray(1).readUIntBE(5, 6)).to.equal(size)
  })

  it('a source of one entry at a time (oneByOne: unknown sizes, streamed bodies) gives the same archive format', async () => {
    const body = randomBytes(70_000)
    const source: Source = {
      type: 'test',
      name: 'db',
      batches: () => oneByOne(entries()),
    }
    async function* entries(): AsyncIterable<SourceEntry> {
      yield { name: 'db', type: 'directory', mode: 0o755, mtime: new Date(1_000_000_000_000) }
      // No size: spooled to a temporary file first, then written with its measured length.
      yield {
        name: 'db/dump.sql',
        type: 'file',
        mode: 0o600,
        mtime: new Date(1_000_000_000_000),
        open: () => Readable.from([body.subarray(0, 1000), body.subarray(1000)]),
      }
      yield {
        name: 'db/small',
        type: 'file',
        mode: 0o644,
        mtime: new Date(1_000_000_000_000),
        size: 3,
        open: () => Readable.from([Buffer.from('abc')]),
      }
    }
    const archive = join(tmp.dir, 'generic.tar')
    await writeArchive([source], archive)
    const restored = join(tmp.dir, 'restored')
    await mkdir(restored)
    execFileSync('tar', ['-xf', archive, '-C', restored])
    expect((await readFile(join(restored, 'db/dump.sql'))).equals(body)).to.equal(true)
    expect(await readFile(join(restored, 'db/small'), 'utf8')).to.equal('abc')
    expect(((await lstat(join(restored, 'db/dump.sql'))).mode & 0o777).toString(8)).to.equal('600')
  })

  it('a cancel mid-run rejects with the reason and leaves no descriptor of the tree open', async () => {
    const root = join(tmp.dir, 'tree')
    for (let d = 0; d < 20; d++) {
      await mkdir(join(root, `d${d}`), { recursive: true })
      for (let f = 0; f < 100; f++) await writeFile(join(root, `d${d}`, `f${f}`), randomBytes(2000))
    }
    await writeFile(join(root, 'z-large'), randomBytes(4 * 1024 * 1024))
    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    const out = createArchive([new LocalSource('src', root, [], { log: () => {} })], { compression: 'tar', signal: controller.signal })
    const sink = new PassThrough()
    let received = 0
    // Proves the count sees the walk's descriptors (the check at the end would pass on a count always 0).
    let openWhileWalking = 0
    sink.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (!controller.signal.aborted) {
        openWhileWalking = openDescriptorsUnder(root)
        controller.abort(reason)
      }
    })
    const error = await pipeline(out, sink).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(error).to.equal(reason)
    expect(received).to.be.greaterThan(0)
    expect(openWhileWalking).to.be.greaterThan(0)
    // The generator's cleanup runs as the stream is destroyed: wait for it (bounded), then check.
    for (let i = 0; i < 1500 && openDescriptorsUnder(root) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(openDescriptorsUnder(root)).to.equal(0)
  })
})
