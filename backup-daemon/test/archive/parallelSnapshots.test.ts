/**
 * Parallel-compressed snapshots end to end: `backup-daemon run` (the bundled launcher, a real child
 * process) writes split tar.gz (plain, openssl, age) and tar.zst sets; the standard tools alone
 * (`cat`, `sha256sum`'s digest, `openssl enc -d`, `age -d`, `gzip -t`, `zstd -d`, `tar -x`) restore
 * them byte for byte. A cancel during a parallel compression leaves no file and no worker thread.
 */
import { expect } from 'chai'
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { liveGzipWorkers } from '../../src/archive/parallelGzip.js'
import { createEngine } from '../../src/engine/createEngine.js'
import { configIn, tempDir, waitFor } from '../engine/helpers.js'
import { gzipMembers } from './gzipMembers.js'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))

interface Manifest {
  name: string
  sha256: string
  parts: { key: string; size: number; sha256: string }[]
}

/** ~3 MiB in 40 files (text and random bytes): several 1 MiB gzip members, cut into several parts. */
async function makeData(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>()
  for (let i = 0; i < 40; i++) {
    const body = i % 3 === 0 ? randomBytes(150_000 + i * 1000) : Buffer.from(`row ${i}, some text to compress\n`.repeat(2000 + i * 50))
    await mkdir(join(root, `d${i % 4}`), { recursive: true })
    await writeFile(join(root, `d${i % 4}`, `f${i}.dat`), body)
    files.set(`d${i % 4}/f${i}.dat`, body)
  }
  return files
}

describe('parallel compression: split and encrypted snapshots restored by the standard tools', function () {
  this.timeout(180_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  it('tar.gz (plain, openssl, age) and tar.zst, split into parts: sha256 of every part, then gzip -t / zstd -d and tar -x', async () => {
    const files = await makeData(join(tmp.dir, 'src'))
    execFileSync('age-keygen', ['-o', join(tmp.dir, 'key.txt')], { stdio: 'ignore' })
    const recipient = /public key: (age1[0-9a-z]+)/.exec(await readFile(join(tmp.dir, 'key.txt'), 'utf8'))![1]!
    const split = '    split: { chunkSize: 400000 }\n'
    await writeFile(
      join(tmp.dir, 'c.yaml'),
      `dataDir: ./data
jobs:
${[
  ['gz', 'tar.gz', ''],
  ['gzopenssl', 'tar.gz', '    encryption: { type: openssl, password: "pass word 1" }\n'],
  ['gzage', '{ type: tar.gz, level: 9 }', `    encryption: { type: age, recipients: [${recipient}] }\n`],
  ['zst', 'tar.zst', ''],
]
  .map(
    ([name, compression, extra]) =>
      `  - name: ${name}\n    compression: ${compression}\n    sources: [{ type: local, name: files, path: ./src }]\n    storages: [{ type: local, name: disk, path: ./backups }]\n${split}${extra}`,
  )
  .join('')}`,
    )
    for (const job of ['gz', 'gzopenssl', 'gzage', 'zst']) {
      const run = spawnSync(process.execPath, [bin, 'run', job, '--config', join(tmp.dir, 'c.yaml')], {
        cwd: tmp.dir,
        encoding: 'utf8',
        env: { ...process.env, BACKUP_DAEMON_COMPRESS_THREADS: '3' },
      })
      expect(run.status, `${job}: ${run.stdout}${run.stderr}`).to.equal(0)
      const manifestFile = (await readdir(join(tmp.dir, 'backups'), { recursive: true })).find((f) => f.includes(`${job}-`) && f.endsWith('.manifest.json'))!
      const manifest = JSON.parse(await readFile(join(tmp.dir, 'backups', manifestFile), 'utf8')) as Manifest
      expect(manifest.parts.length, job).to.be.at.least(2)
      // The parts, checked one by one against the manifest, then concatenated as `cat *.part-*` does.
      const parts = await Promise.all(manifest.parts.map((part) => readFile(join(tmp.dir, 'backups', part.key))))
      parts.forEach((bytes, i) => expect(createHash('sha256').update(bytes).digest('hex'), `${job} part ${i}`).to.equal(manifest.parts[i]!.sha256))
      const whole = Buffer.concat(parts)
      expect(createHash('sha256').update(whole).digest('hex')).to.equal(manifest.sha256)
      const archive = join(tmp.dir, `${job}.archive`)
      await writeFile(archive, whole)

      let plain = archive
      if (job === 'gzopenssl') {
        plain = join(tmp.dir, `${job}.tar.gz`)
        execFileSync('openssl', ['enc', '-d', '-aes-256-cbc', '-pbkdf2', '-in', archive, '-out', plain, '-pass', 'env:P'], {
          env: { ...process.env, P: 'pass word 1' },
        })
      } else if (job === 'gzage') {
        plain = join(tmp.dir, `${job}.tar.gz`)
        execFileSync('age', ['-d', '-i', join(tmp.dir, 'key.txt'), '-o', plain, archive])
      }
      const out = join(tmp.dir, `out-${job}`)
      await mkdir(out)
      if (job === 'zst') {
        const tarFile = join(tmp.dir, 'zst.tar')
        execFileSync('zstd', ['-d', '-q', archive, '-o', tarFile])
        execFileSync('tar', ['-xf', tarFile, '-C', out])
      } else {
        execFileSync('gzip', ['-t', plain], { stdio: 'pipe' })
        // Several members: the parallel compressor was used, not one deflate stream.
        expect(gzipMembers(await readFile(plain)), job).to.be.at.least(3)
        execFileSync('tar', ['-xzf', plain, '-C', out])
      }
      for (const [name, body] of files) expect((await readFile(join(out, 'files', name))).equals(body), `${job}: ${name}`).to.equal(true)
    }
  })

  it('a cancel during a parallel tar.gz compression leaves no file and no worker thread', async () => {
    await mkdir(join(tmp.dir, 'src'))
    // Random bytes compress slowly: the run is still compressing when it is cancelled.
    await writeFile(join(tmp.dir, 'src', 'slow.bin'), randomBytes(48 << 20))
    const engine = await createEngine(await configIn(tmp.dir, [{ name: 'slow', extra: '    split: { chunkSize: 1048576 }\n' }]))
    try {
      engine.run('slow', 'manual')
      const written = () => {
        try {
          return readdirSync(join(tmp.dir, 'backups'), { recursive: true }).length
        } catch {
          return 0
        }
      }
      await waitFor(() => liveGzipWorkers() > 0 && written() >= 2, 20_000, 'compression to start and parts to be written')
      engine.cancel('slow')
      expect(await engine.whenIdle('slow')).to.include({ status: 'cancelled' })
      await waitFor(() => liveGzipWorkers() === 0, 5000, 'gzip workers to exit')
      const left = (await readdir(join(tmp.dir, 'backups'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile())
      expect(left.map((e) => e.name)).to.deep.equal([])
    } finally {
      await engine.stop()
    }
  })
})
