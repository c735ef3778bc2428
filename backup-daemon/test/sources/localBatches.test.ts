/**
 * The `local` source reads small files into one buffer it reuses as a ring (`sources/local/localWalk.ts`).
 * Over many batches (hundreds of small files, a streamed file ending a batch in the
 * middle): the archive restores byte for byte with GNU tar, and `entries()` (zip, remote mirrors) hands out
 * bytes that stay right after the walk has moved on to later batches.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createArchive } from '../../src/archive/createArchive.js'
import { LocalSource } from '../../src/sources/local/index.js'
import type { SourceEntry } from '../../src/sources/types.js'
import { tempDir } from '../engine/helpers.js'

const quiet = { log: () => {} }

/**
 * 300 files in three folders (several batches of 64 entries, many turns of the walk's 1 MiB ring): most of
 * 0 to 9 KiB, every tenth of 20 to 250 KiB (around the ring's 32 KiB limit and the tar writer's 64 KiB
 * pass-through size), one of 300 KiB (streamed).
 */
async function makeTree(root: string): Promise<Map<string, Buffer>> {
  const content = new Map<string, Buffer>()
  for (let i = 0; i < 300; i++) {
    const path = `d${i % 3}/f${String(i).padStart(3, '0')}`
    const size = i === 150 ? 300 * 1024 : i % 10 === 0 ? 20 * 1024 + ((i * 7919) % (230 * 1024)) : (i * 37) % (9 * 1024)
    content.set(path, randomBytes(size))
  }
  for (const [path, bytes] of content) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), bytes)
  }
  return content
}

describe('sources/local: small files read into a ring buffer reused by the walk', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir('local-batches-')))
  afterEach(() => tmp.remove())
  const dir = () => tmp.dir

  for (const tarBuilder of ['batches', 'thread', 'worker'] as const) {
    it(`an archive of hundreds of small files restores byte for byte with GNU tar (tar built by ${tarBuilder})`, async () => {
      const content = await makeTree(join(dir(), 'tree'))
      const archive = join(dir(), 'out.tar')
      const source = new LocalSource('files', join(dir(), 'tree'), [], quiet, { tarBuilder })
      await pipeline(createArchive([source], { compression: 'tar', signal: new AbortController().signal }), createWriteStream(archive))
      await mkdir(join(dir(), 'restored'))
      execFileSync('tar', ['-xf', archive, '-C', join(dir(), 'restored')])
      for (const [path, bytes] of content) expect((await readFile(join(dir(), 'restored', 'files', path))).equals(bytes), path).to.equal(true)
    })
  }

  it('entries() hands out bytes that stay right after the walk has read later batches', async () => {
    const content = await makeTree(join(dir(), 'tree'))
    const source = new LocalSource('files', join(dir(), 'tree'), [], quiet)
    // Small files are kept until the walk is over, then read: a view of the reused buffer would hold a later
    // batch's bytes. The one file over the small-file limit is streamed from its descriptor, which the walk
    // hands over only until it moves on, so it is read at once.
    const kept: SourceEntry[] = []
    let streamed = 0
    for await (const entry of source.entries(new AbortController().signal)) {
      if (entry.type !== 'file') continue
      if (!entry.read) {
        const chunks: Buffer[] = []
        for await (const chunk of entry.open!(new AbortController().signal)) chunks.push(chunk as Buffer)
        expect(Buffer.concat(chunks).equals(content.get(entry.name.slice('files/'.length))!), entry.name).to.equal(true)
        streamed++
      } else {
        kept.push(entry)
      }
    }
    expect(streamed).to.equal(1)
    expect(kept).to.have.length(content.size - 1)
    for (const entry of kept) {
      const bytes = await entry.read!(new AbortController().signal)
      expect(bytes.equals(content.get(entry.name.slice('files/'.length))!), entry.name).to.equal(true)
    }
  })
})
