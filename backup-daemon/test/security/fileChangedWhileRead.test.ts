/**
 * A file that shrinks while a run reads it is still zero-padded (tar needs the announced length), but
 * no longer silently: the job log gets a warning naming the file and the commit line says how many
 * files changed while read. Real local source, real local storage, the real `runJob`; the storage is
 * wrapped so the file is truncated at a known point of the stream: after 1 MiB of the archive has been
 * stored, while at most a few hundred KiB more of the 16 MiB file have been read (backpressure).
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdir, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { exactSize } from '../../src/archive/exactSize.js'
import { runJob } from '../../src/engine/runJob.js'
import { jobRepositoryOn } from '../../src/repository/jobRepository.js'
import { LocalStorage } from '../../src/storages/local.js'
import type { Storage } from '../../src/storages/types.js'
import { configIn, tempDir } from '../engine/helpers.js'

/** The real local storage, calling `atBytes` once when that many bytes of the archive have passed. */
function storageTriggering(inner: LocalStorage, threshold: number, atBytes: () => Promise<void>): Storage {
  return Object.assign(Object.create(inner) as LocalStorage, {
    write(dir: string, body: Readable, signal: AbortSignal) {
      let seen = 0
      let fired = false
      const watch = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          seen += chunk.length
          if (!fired && seen >= threshold) {
            fired = true
            atBytes().then(() => callback(null, chunk), callback)
          } else callback(null, chunk)
        },
      })
      return inner.write(dir, body.pipe(watch), signal)
    },
  })
}

describe('security: a file changed while read is reported, not silently padded', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    tmp = await tempDir('sec-shrink-')
  })
  afterEach(() => tmp.remove())

  it('a file truncated during the run: WARN naming the file, and the commit line counts it', async () => {
    await mkdir(join(tmp.dir, 'src'))
    await writeFile(join(tmp.dir, 'src', 'a-small.txt'), 'unchanged\n')
    await writeFile(join(tmp.dir, 'src', 'big.bin'), randomBytes(16 * 1024 * 1024))
    const config = await configIn(tmp.dir, [{ name: 'shrink', compression: 'tar' }])
    const job = config.jobs[0]!
    const storage = storageTriggering(new LocalStorage('disk', join(tmp.dir, 'backups')), 1024 * 1024, () => truncate(join(tmp.dir, 'src', 'big.bin'), 0))
    const lines: [string, string][] = []
    await runJob({
      job,
      repository: jobRepositoryOn(job, [storage]),
      signal: new AbortController().signal,
      log: (level, message) => lines.push([level, message]),
    })
    const warnings = lines.filter(([level]) => level === 'warn').map(([, m]) => m)
    expect(warnings).to.have.length(1)
    expect(warnings[0]).to.match(/^files\/big\.bin changed while read: shrank to \d+ bytes, padded with zeros to the 16777216 bytes it had/)
    const committed = lines.find(([, m]) => m.startsWith('committed '))![1]
    expect(committed).to.match(/; 1 file\(s\) changed while read/)
  })

  it('an unchanged tree gives no warning and a plain commit line', async () => {
    await mkdir(join(tmp.dir, 'src'))
    await writeFile(join(tmp.dir, 'src', 'a.txt'), 'same\n')
    const config = await configIn(tmp.dir, [{ name: 'same', compression: 'tar' }])
    const lines: [string, string][] = []
    await runJob({
      job: config.jobs[0]!,
      repository: jobRepositoryOn(config.jobs[0]!, [new LocalStorage('disk', join(tmp.dir, 'backups'))]),
      signal: new AbortController().signal,
      log: (level, message) => lines.push([level, message]),
    })
    expect(lines.filter(([level]) => level === 'warn')).to.deep.equal([])
    expect(lines.find(([, m]) => m.startsWith('committed '))![1]).not.to.include('changed while read')
  })

  it('exactSize still pads to the announced size and tells how many bytes came', async () => {
    const seen: number[] = []
    const t = exactSize(10, (read) => seen.push(read))
    const out: Buffer[] = []
    t.on('data', (c: Buffer) => out.push(c))
    t.end(Buffer.from('abcd'))
    await new Promise((r) => t.on('end', r))
    expect(Buffer.concat(out)).to.deep.equal(Buffer.concat([Buffer.from('abcd'), Buffer.alloc(6)]))
    expect(seen).to.deep.equal([4])
  })
})
