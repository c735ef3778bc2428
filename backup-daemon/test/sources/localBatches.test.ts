/**
 * The `local` source reads small files into one buffer it reuses as a ring (`sources/local/localWalk.ts`).
 * Over many batches (hundreds of small files, a streamed file ending a batch in the middle): the archive
 * restores byte for byte with GNU tar; `batches()`, the one way every consumer reads a source, hands out
 * bytes that are right until the next batch is asked for (and views kept past it do change, so a consumer
 * that keeps bytes must copy them); a zip, whose writer keeps bytes past the batch, restores byte for byte.
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

  it('batches() hand out bytes that are right until the next batch is asked for; views kept longer change', async () => {
    const content = await makeTree(join(dir(), 'tree'))
    const source = new LocalSource('files', join(dir(), 'tree'), [], quiet)
    const expected = (entry: SourceEntry) => content.get(entry.name.slice('files/'.length))!
    // Each batch is checked before the next one is asked for. The views are also kept until the walk is over:
    // the walk reuses their memory, so some of them must hold a later file's bytes by then. The one file over
    // the small-file limit is streamed from its descriptor, which the walk closes when it moves on unclaimed,
    // so it is read at once.
    const kept: SourceEntry[] = []
    let streamed = 0
    let batches = 0
    for await (const batch of source.batches(new AbortController().signal)) {
      batches++
      for (const entry of batch) {
        if (entry.type !== 'file') continue
        if (entry.data) {
          expect(entry.data.equals(expected(entry)), entry.name).to.equal(true)
          kept.push(entry)
        } else {
          const chunks: Buffer[] = []
          for await (const chunk of entry.open!(new AbortController().signal)) chunks.push(chunk as Buffer)
          expect(Buffer.concat(chunks).equals(expected(entry)), entry.name).to.equal(true)
          streamed++
        }
      }
    }
    expect(streamed).to.equal(1)
    expect(kept).to.have.length(content.size - 1)
    expect(batches, 'several batches').to.be.greaterThan(4)
    const changed = kept.filter((entry) => !entry.data!.equals(expected(entry)))
    expect(changed.length, 'views of the reused memory kept past their batch').to.be.greaterThan(0)
  })

  it('a zip archive, whose writer keeps bytes past their batch, restores byte for byte with unzip', async () => {
    const content = await makeTree(join(dir(), 'tree'))
    const archive = join(dir(), 'out.zip')
    const source = new LocalSource('files', join(dir(), 'tree'), [], quiet)
    await pipeline(createArchive([source], { compression: 'zip', signal: new AbortController().signal }), createWriteStream(archive))
    execFileSync('unzip', ['-q', archive, '-d', join(dir(), 'restored')])
    for (const [path, bytes] of content) expect((await readFile(join(dir(), 'restored', 'files', path))).equals(bytes), path).to.equal(true)
  })
})
