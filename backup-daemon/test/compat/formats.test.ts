/**
 * `tar.xz` (the `xz -T0` child process) and `zip` (yazl) snapshots: the stock tools read what a run
 * writes (`tar -xJf`, `unzip -t`, `unzip`), the daemon restores its own and what `tar -cJf` and
 * `zip -r` wrote, and a zip entry escaping the folder is refused by the same checks as a tar's.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { access, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { xzStream } from '../../src/archive/xzStream.js'
import { createEngine } from '../../src/engine/createEngine.js'
import type { Compression, JobConfig } from '../../src/config/types.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { exec, legacyConfig, makeFiles, makeSqlite, restore, snapshotOfFiles } from './support/compatFixture.js'
import { writeOriginal } from './support/originalSnapshots.js'

describe('compat: tar.xz and zip snapshots', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let expected: Record<string, string>
  beforeEach(async () => {
    tmp = await tempDir('bd-formats-')
    await makeFiles(join(tmp.dir, 'live'))
    await symlink('readme.txt', join(tmp.dir, 'live', 'docs', 'link'))
    await makeSqlite(join(tmp.dir, 'app.db'), 'ours')
    expected = await snapshotOfFiles(join(tmp.dir, 'live'))
  })
  afterEach(() => tmp.remove())

  const runWith = async (compression: Compression, change: (job: JobConfig) => void = () => {}) => {
    const config = await legacyConfig(tmp.dir, (job) => {
      job.compression = compression
      change(job)
    })
    const engine = await createEngine(config, { schedule: false, persistLogs: false })
    try {
      engine.run('legacy', 'manual')
      const info = await engine.whenIdle('legacy')
      expect(info.status, info.error).to.equal('success')
      const [snapshot] = await engine.listSnapshots('legacy')
      return { job: config.jobs[0]!, snapshot: snapshot!, file: join(tmp.dir, 'store', snapshot!.path) }
    } finally {
      await engine.stop()
    }
  }

  it('tar.xz: `tar -xJf` unpacks what a run wrote; the daemon restores it', async () => {
    const { job, snapshot, file } = await runWith('tar.xz')
    expect(snapshot.name).to.match(/\.tar\.xz$/)
    const out = join(tmp.dir, 'by-tar')
    await mkdir(out)
    await exec('tar', ['-xJf', file, '-C', out])
    expect(await snapshotOfFiles(join(out, 'files'))).to.deep.equal(expected)
    expect(await readlink(join(out, 'files', 'docs', 'link'))).to.equal('readme.txt')
    const to = join(tmp.dir, 'restored')
    const result = await restore(job, { snapshot: snapshot.name, to })
    expect(result.code, result.stderr).to.equal(0)
    expect(await snapshotOfFiles(join(to, 'files'))).to.deep.equal(expected)
  })

  it('xz: corrupt input fails the stream instead of ending it short', async () => {
    const good = await buffer(Readable.from([Buffer.from('x'.repeat(100_000))]).pipe(xzStream('compress')))
    const cut = good.subarray(0, good.length - 20)
    try {
      await buffer(Readable.from([cut]).pipe(xzStream('decompress')))
      expect.fail('a truncated xz stream ended normally')
    } catch (err) {
      expect((err as Error).message).to.match(/xz decompress failed/)
    }
  })

  it('zip: `unzip -t` tests it, `unzip` unpacks files and links; split too; the daemon restores it', async () => {
    const { job, snapshot, file } = await runWith('zip')
    expect(snapshot.name).to.match(/\.zip$/)
    const tested = await exec('unzip', ['-t', file])
    expect(tested.stdout).to.match(/No errors detected/)
    const out = join(tmp.dir, 'by-unzip')
    await exec('unzip', ['-q', file, '-d', out])
    expect(await snapshotOfFiles(join(out, 'files'))).to.deep.equal(expected)
    expect(await readlink(join(out, 'files', 'docs', 'link'))).to.equal('readme.txt')
    expect((await readFile(join(out, 'db', 'app.sqlite'))).subarray(0, 15).toString()).to.equal('SQLite format 3')
    const to = join(tmp.dir, 'restored')
    const result = await restore(job, { snapshot: snapshot.name, to })
    expect(result.code, result.stderr).to.equal(0)
    expect(await snapshotOfFiles(join(to, 'files'))).to.deep.equal(expected)
    expect(await readlink(join(to, 'files', 'docs', 'link'))).to.equal('readme.txt')

    const split = await runWith('zip', (j) => {
      j.split = { chunkSize: 40_000 }
      j.encryption = { type: 'openssl', cipher: 'aes-256-ctr', password: 'zip-pass' }
    })
    expect(split.snapshot).to.include({ isSplit: true })
    const splitTo = join(tmp.dir, 'restored-split')
    const again = await restore(split.job, { snapshot: split.snapshot.name, to: splitTo })
    expect(again.code, again.stderr).to.equal(0)
    expect(await snapshotOfFiles(join(splitTo, 'files'))).to.deep.equal(expected)
  })

  it('zip: a run cancelled mid-write leaves nothing listed and no file behind', async () => {
    await writeFile(join(tmp.dir, 'live', 'big.bin'), randomBytes(48 * 1024 * 1024))
    const config = await legacyConfig(tmp.dir, (job) => {
      job.compression = 'zip'
    })
    const engine = await createEngine(config, { schedule: false, persistLogs: false })
    try {
      engine.run('legacy', 'manual')
      // Cancel once bytes are being written to the storage.
      await waitFor(
        async () => (await readdir(join(tmp.dir, 'store', 'legacy')).catch(() => [])).some((n) => n.endsWith('.incomplete')),
        60_000,
        'a temporary object',
      )
      engine.cancel('legacy')
      const info = await engine.whenIdle('legacy')
      expect(info.status).to.equal('cancelled')
      expect(await engine.listSnapshots('legacy')).to.deep.equal([])
      for (const store of ['store', 'spare']) expect(await readdir(join(tmp.dir, store, 'legacy')).catch(() => [])).to.deep.equal([])
    } finally {
      await engine.stop()
    }
  })

  it("reads what `tar -cJf` and `zip -r` wrote (the original service's commands)", async () => {
    const sources = join(tmp.dir, 'snapr-sources')
    await makeFiles(join(sources, 'local_1'))
    const store = join(tmp.dir, 'store')
    const xz = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-03-01T00:00:00Z'), compression: 'tar.xz' })
    const zip = await writeOriginal({ store, job: 'legacy', sources, at: new Date('2026-03-02T00:00:00Z'), compression: 'zip' })
    // And plain `tar -cJf` (xz's own defaults, no -T0).
    const plain = { name: 'legacy-20260303-000000.tar.xz' }
    await exec('tar', ['-cJf', join(store, 'legacy', plain.name), '-C', sources, 'local_1'])
    const config = await legacyConfig(tmp.dir)
    for (const snapshot of [xz, zip, plain]) {
      const to = join(tmp.dir, `restored-${snapshot.name}`)
      const result = await restore(config.jobs[0]!, { snapshot: snapshot.name, to })
      expect(result.code, result.stderr).to.equal(0)
      expect(await snapshotOfFiles(join(to, 'local_1'))).to.deep.equal(await snapshotOfFiles(join(sources, 'local_1')))
    }
  })

  it('a zip entry escaping the folder is refused, and nothing lands outside', async () => {
    const folder = join(tmp.dir, 'store', 'legacy')
    await mkdir(folder, { recursive: true })
    const name = 'legacy-20260301-000000.zip'
    const script = `import zipfile, sys
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('ok.txt', 'fine')
    z.writestr('../escaped.txt', 'evil')`
    await exec('python3', ['-c', script, join(folder, name)])
    const config = await legacyConfig(tmp.dir)
    const to = join(tmp.dir, 'target', 'inside')
    const result = await restore(config.jobs[0]!, { snapshot: name, to })
    expect(result.code).to.equal(1)
    // yauzl already refuses the name while the archive is read through; extractTo's checks would refuse it next.
    expect(result.stderr).to.match(/\.\.\/escaped\.txt/)
    expect(result.stderr).to.match(/no storage holds an intact copy/)
    expect(
      await access(join(tmp.dir, 'target', 'escaped.txt')).then(
        () => true,
        () => false,
      ),
    ).to.equal(false)
    expect(await readdir(tmp.dir)).not.to.include('escaped.txt')

    // A link leading outside, then a file through it: yauzl passes both, extractTo's checks refuse the file.
    const outside = join(tmp.dir, 'outside')
    await mkdir(outside)
    const linked = 'legacy-20260302-000000.zip'
    const linkScript = `import zipfile, sys
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    info = zipfile.ZipInfo('link')
    info.create_system = 3
    info.external_attr = 0o120777 << 16
    z.writestr(info, sys.argv[2])
    z.writestr('link/evil.txt', 'evil')`
    await exec('python3', ['-c', linkScript, join(folder, linked), outside])
    const through = await restore(config.jobs[0]!, { snapshot: linked, to: join(tmp.dir, 'target2') })
    expect(through.code).to.equal(1)
    expect(through.stderr).to.match(/refusing archive entry "link\/evil\.txt"/)
    expect(await readdir(outside)).to.deep.equal([])
  })
})
