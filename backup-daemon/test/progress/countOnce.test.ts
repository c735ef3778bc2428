/**
 * Numbers count once (issue 38): a job with an archive storage and a restic storage reads its folder twice
 * (the archive's walk, then restic's own), yet its run reports the folder's files and bytes once, its
 * percent never passes 100, the restic repository shows nothing written before restic added anything, and
 * each storage's bytes written are what it got: the archive's size for the archive storage, restic's
 * `data_added` for the repository (close to the data on the first run, a few KiB for an unchanged one).
 * The run is listed once, held by both storages.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createEngine, type DaemonEngine } from '../../src/engine/createEngine.js'
import type { RunRecord } from '../../src/runs/history.js'
import type { RunProgress } from '../../src/runs/progress.js'
import { tempDir } from '../engine/helpers.js'
import { requireRestic } from '../support/requireRestic.js'

describe('progress: a job with archive and restic storages counts each source once', function () {
  this.timeout(120_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let engine: DaemonEngine
  const files = 24
  const size = 128 * 1024

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-count-once-')
    await mkdir(join(tmp.dir, 'site'))
    for (let i = 0; i < files; i++) await writeFile(join(tmp.dir, 'site', `f${i}.bin`), randomBytes(size))
    process.env.COUNT_ONCE_RESTIC_PASSWORD = 'count once passphrase'
    await writeFile(
      join(tmp.dir, 'backup-daemon.yaml'),
      `dataDir: ./data
jobs:
  - name: both
    compression: tar
    sources: [{ type: local, name: files, path: ./site }]
    storages:
      - { type: local, name: disk, path: ./archives }
      - { type: restic, name: dedup, repository: ./repo, password: env:COUNT_ONCE_RESTIC_PASSWORD }
`,
    )
    engine = await createEngine(await loadConfig(join(tmp.dir, 'backup-daemon.yaml')), { schedule: false, persistLogs: false })
  })
  after(async () => {
    await engine?.stop()
    delete process.env.COUNT_ONCE_RESTIC_PASSWORD
    await tmp?.remove()
  })

  /** One run, with every progress snapshot it published. */
  async function run(): Promise<{ record: RunRecord; samples: RunProgress[] }> {
    const samples: RunProgress[] = []
    let record: RunRecord | undefined
    const unwatch = engine.watchRuns('both', { progress: (p) => samples.push(p), end: (r) => (record = r) })
    engine.run('both', 'manual')
    const info = await engine.whenIdle('both')
    unwatch()
    expect(info.status, info.error).to.equal('success')
    return { record: record!, samples }
  }

  it('reports the folder once, percent at most 100, and what each storage got', async () => {
    const first = await run()
    const data = files * size
    expect(first.record).to.include({ bytesRead: data, filesRead: files })
    const [disk, dedup] = first.record.storages!
    expect(disk!.storage).to.equal('disk')
    // A tar of the files: their bytes, a header each, the end blocks.
    expect(disk!.bytesWritten).to.be.within(data, data + (files + 8) * 1024)
    expect(dedup!.storage).to.equal('dedup')
    // Random bytes do not deduplicate: restic added about the data (compressed or not, plus its metadata).
    expect(dedup!.bytesWritten).to.be.within(data * 0.9, data * 1.2)
    expect(first.record.bytesWritten).to.equal(Math.max(disk!.bytesWritten, dedup!.bytesWritten))
    expect(first.samples.length).to.be.above(0)
    for (const sample of first.samples) {
      expect(sample.bytesRead, 'bytes read').to.be.at.most(data)
      expect(sample.filesRead, 'files read').to.be.at.most(files)
      if (sample.percent !== undefined) expect(sample.percent).to.be.at.most(100)
      // Nothing written to restic while the archive is written: restic has not added anything yet.
      const archive = sample.storages.find((s) => s.storage === 'disk')!.bytesWritten
      if (archive < disk!.bytesWritten) expect(sample.storages.find((s) => s.storage === 'dedup')!.bytesWritten).to.equal(0)
    }

    // One run is one listed snapshot held by both storages (two rows before, issue 38), and its name finds both copies.
    const listed = await engine.listSnapshots('both')
    expect(listed.map((v) => [v.name, v.storages])).to.deep.equal([[first.record.snapshot, ['disk', 'dedup']]])
    const copies = await engine.repositoryOf('both').copies(listed[0]!.name)
    expect(copies.map((c) => ('snapshot' in c ? `${c.repository.name}: ${c.snapshot.view.name}` : c.missing))).to.deep.equal([
      `disk: ${first.record.snapshot}`,
      `dedup: ${first.record.snapshot!.replace(/\.tar$/, '')}`,
    ])

    // Unchanged: the same reads, the same archive, and restic adds only its bookkeeping.
    const second = await run()
    expect(second.record).to.include({ bytesRead: data, filesRead: files })
    expect(second.record.storages![0]!.bytesWritten).to.equal(disk!.bytesWritten)
    expect(second.record.storages![1]!.bytesWritten).to.be.below(64 * 1024)
    // The previous run's reads are the total: the percent is against the folder, not twice it.
    expect(second.samples.at(-1)?.totalBytes).to.equal(data)
  })
})
