import { expect } from 'chai'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { snapshotName } from '../../src/repository/archives/layout.js'
import { writeSnapshot } from '../../src/repository/archives/writeSnapshot.js'
import { isoWeek, snapshotsToKeep } from '../../src/repository/retentionPlan.js'
import { archiveRepository } from '../../src/repository/archives/archiveRepository.js'
import { listCatalog } from '../../src/repository/archives/catalog.js'
import { jobLayout } from '../../src/repository/archives/layout.js'
import { applyRetention } from '../../src/repository/jobRepository.js'
import { LocalStorage } from '../../src/storages/local.js'
import { tempDir } from '../engine/helpers.js'

/** Snapshots named after their UTC time, at `hours` after 2026-01-01T00:00Z (a Thursday). */
const at = (...hours: number[]) =>
  hours.map((h) => {
    const createdAt = new Date(Date.UTC(2026, 0, 1) + h * 3_600_000)
    return { name: createdAt.toISOString(), createdAt }
  })
const kept = (snapshots: ReturnType<typeof at>, policy: Parameters<typeof snapshotsToKeep>[1]) => [...snapshotsToKeep(snapshots, policy)].sort()

describe('repository/retentionPlan (synthetic timestamps)', () => {
  it('last N keeps the newest N whatever the input order', () => {
    const snaps = at(5, 1, 30, 2, 4)
    expect(kept(snaps, { last: 2 })).to.deep.equal(
      at(5, 30)
        .map((s) => s.name)
        .sort(),
    )
  })

  it('daily keeps the newest snapshot of each of the newest N days that have one', () => {
    // Day 1: 01:00, 13:00; day 2: none; day 3: 49:00 (Jan 3 01:00), 60:00 (Jan 3 12:00); day 4: 75:00.
    const snaps = at(1, 13, 49, 60, 75)
    expect(kept(snaps, { daily: 2 })).to.deep.equal(
      at(60, 75)
        .map((s) => s.name)
        .sort(),
    )
    // Days without a snapshot do not count: 3 days reach back to Jan 1.
    expect(kept(snaps, { daily: 3 })).to.deep.equal(
      at(13, 60, 75)
        .map((s) => s.name)
        .sort(),
    )
  })

  it('weekly uses ISO weeks (Monday start) and monthly calendar months, both UTC', () => {
    expect(isoWeek(new Date('2026-01-01T00:00:00Z'))).to.equal('2026-W01')
    expect(isoWeek(new Date('2025-12-29T00:00:00Z'))).to.equal('2026-W01')
    expect(isoWeek(new Date('2025-12-28T23:59:59Z'))).to.equal('2025-W52')
    expect(isoWeek(new Date('2027-01-03T12:00:00Z'))).to.equal('2026-W53')
    // Jan 1 (Thu, W01), Jan 4 (Sun, W01), Jan 5 (Mon, W02), Jan 12 (Mon, W03), Feb 2 (W06).
    const snaps = at(0, 3 * 24, 4 * 24, 11 * 24, 32 * 24)
    expect(kept(snaps, { weekly: 3 })).to.deep.equal(
      at(4 * 24, 11 * 24, 32 * 24)
        .map((s) => s.name)
        .sort(),
    )
    expect(kept(snaps, { monthly: 2 })).to.deep.equal(
      at(11 * 24, 32 * 24)
        .map((s) => s.name)
        .sort(),
    )
  })

  it('rules combine as a union', () => {
    // 10 days, 4 snapshots a day (every 6 h).
    const snaps = at(...Array.from({ length: 40 }, (_, i) => i * 6))
    const keep = snapshotsToKeep(snaps, { last: 3, daily: 5 })
    const newest3 = at(39 * 6, 38 * 6, 37 * 6).map((s) => s.name)
    const lastOfDays = [9, 8, 7, 6, 5].map((d) => at(d * 24 + 18)[0]!.name)
    expect([...keep].sort()).to.deep.equal([...new Set([...newest3, ...lastOfDays])].sort())
    expect(keep.size).to.equal(7)
  })

  it('an empty policy keeps everything', () => {
    const snaps = at(1, 2, 3)
    expect(snapshotsToKeep(snaps, {}).size).to.equal(3)
  })

  it('applyRetention on a real storage: daily + last, split sets counting as one, manifests and parts removed', async () => {
    const tmp = await tempDir()
    try {
      const storage = new LocalStorage('disk', join(tmp.dir, 'disk'))
      // Two snapshots a day for four days; the odd ones split into three parts.
      const times = [0, 12, 24, 36, 48, 60, 72, 84].map((h) => new Date(Date.UTC(2026, 2, 1) + h * 3_600_000))
      for (const [i, createdAt] of times.entries()) {
        const name = snapshotName('j', createdAt, 'tar')
        const archive = Readable.from([Buffer.alloc(3000, i)])
        await writeSnapshot({
          archive,
          storages: [storage],
          job: 'j',
          name,
          compression: 'tar',
          createdAt,
          chunkSize: i % 2 ? 1024 : undefined,
          signal: new AbortController().signal,
        })
      }
      const deleted = await applyRetention(archiveRepository(storage, jobLayout('j')), { last: 1, daily: 3 })
      const { snapshots, orphans } = await listCatalog(storage, 'j')
      // Newest (Mar 4 12:00) by last and daily; Mar 3 12:00 and Mar 2 12:00 by daily.
      expect(snapshots.map((s) => s.view.createdAt)).to.deep.equal(['2026-03-04T12:00:00.000Z', '2026-03-03T12:00:00.000Z', '2026-03-02T12:00:00.000Z'])
      expect(snapshots.every((s) => s.view.isSplit && s.view.partsCount === 3)).to.equal(true)
      expect(deleted).to.have.length(5)
      expect(orphans).to.deep.equal([])
      expect((await storage.list('j/')).length).to.equal(3 * 4) // 3 parts + 1 manifest each
    } finally {
      await tmp.remove()
    }
  })
})
