/**
 * tar.zst and compression levels: archives made by the daemon are unpacked by the stock `zstd -d` and
 * `tar` binaries and compared with the source tree.
 */
import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { createArchive } from '../../src/archive/createArchive.js'
import { zstdStream } from '../../src/archive/zstdStream.js'
import { loadConfig } from '../../src/config/loadConfig.js'
import { ConfigError } from '../../src/config/ConfigError.js'
import { LocalSource } from '../../src/sources/local/index.js'
import { makeTree, tempDir } from '../engine/helpers.js'

const run = promisify(execFile)
const never = () => new AbortController().signal

describe('compression: tar.zst and levels', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(() => tmp.remove())

  const archiveTo = async (file: string, compression: 'tar.gz' | 'tar.zst', level?: number) => {
    const source = new LocalSource('files', join(tmp.dir, 'src'), [], { log: () => {} })
    await pipeline(createArchive([source], { compression, signal: never(), level }), createWriteStream(file))
    return (await stat(file)).size
  }

  it('tar.zst is read by the stock zstd and tar tools, byte for byte', async () => {
    const file = join(tmp.dir, 'a.tar.zst')
    await archiveTo(file, 'tar.zst', 7)
    const head = (await readFile(file)).subarray(0, 4)
    expect(head.toString('hex')).to.equal('28b52ffd') // zstd frame magic
    await run('zstd', ['-t', '-q', file])
    await mkdir(join(tmp.dir, 'out'))
    await run('sh', ['-c', `zstd -d -c '${file}' | tar -x -C '${join(tmp.dir, 'out')}'`])
    await run('diff', ['-r', '--no-dereference', join(tmp.dir, 'src'), join(tmp.dir, 'out/files')])
  })

  it('the level is applied (zstd 1 vs 19, gzip 1 vs 9 on compressible data)', async () => {
    await writeFile(join(tmp.dir, 'src/text.txt'), Array.from({ length: 40_000 }, (_, i) => `line ${i} ${i % 97} ${(i * 7919) % 1000}\n`).join(''))
    const zstd1 = await archiveTo(join(tmp.dir, 'z1.tar.zst'), 'tar.zst', 1)
    const zstd19 = await archiveTo(join(tmp.dir, 'z19.tar.zst'), 'tar.zst', 19)
    expect(zstd19).to.be.lessThan(zstd1)
    const gz1 = await archiveTo(join(tmp.dir, 'g1.tar.gz'), 'tar.gz', 1)
    const gz9 = await archiveTo(join(tmp.dir, 'g9.tar.gz'), 'tar.gz', 9)
    expect(gz9).to.be.lessThan(gz1)
  })

  it('zstd decompression fails on corrupt input instead of ending short', async () => {
    const file = join(tmp.dir, 'a.tar.zst')
    await archiveTo(file, 'tar.zst')
    const bytes = await readFile(file)
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff
    const err = await pipeline(Readable.from([bytes]), zstdStream('decompress'), async function* (source) {
      for await (const chunk of source) yield chunk
    }).catch((e: unknown) => e as Error)
    expect(err).to.be.instanceOf(Error)
    expect((err as Error).message).to.match(/zstd decompress failed/)
  })

  it('config: a plain string stays valid; {type, level} is checked per compressor', async () => {
    const write = async (compression: string) => {
      const file = join(tmp.dir, 'c.yaml')
      await writeFile(
        file,
        `jobs:\n  - name: j\n    compression: ${compression}\n    sources: [{ type: local, name: s, path: ./src }]\n    storages: [{ type: local, name: d, path: ./b }]\n`,
      )
      return loadConfig(file)
    }
    expect((await write('tar.zst')).jobs[0]).to.include({ compression: 'tar.zst' })
    const leveled = (await write('{ type: tar.zst, level: 12 }')).jobs[0]!
    expect([leveled.compression, leveled.compressionLevel]).to.deep.equal(['tar.zst', 12])
    const bad = await write('{ type: tar.gz, level: 12 }').catch((e: unknown) => e as ConfigError)
    expect(bad).to.be.instanceOf(ConfigError)
    expect((bad as ConfigError).issues[0]).to.include({ path: 'jobs[0].compression.level', line: 3, message: 'tar.gz level must be 1 to 9' })
  })
})
