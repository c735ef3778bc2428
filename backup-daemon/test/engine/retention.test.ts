import { expect } from 'chai'
import { isoWeek, snapshotsToKeep } from '../../src/engine/retentionPlan.js'

/** Snapshots named after their UTC time, at `hours` after 2026-01-01T00:00Z (a Thursday). */
const at = (...hours: number[]) =>
  hours.map((h) => {
    const createdAt = new Date(Date.UTC(2026, 0, 1) + h * 3_600_000)
    return { name: createdAt.toISOString(), createdAt }
  })
const kept = (snapshots: ReturnType<typeof at>, policy: Parameters<typeof snapshotsToKeep>[1]) =>
  [...snapshotsToKeep(snapshots, policy)].sort()

describe('engine/retentionPlan (synthetic timestamps)', () => {
  it('last N keeps the newest N whatever the input order', () => {
    const snaps = at(5, 1, 30, 2, 4)
    expect(kept(snaps, { last: 2 })).to.deep.equal(at(5, 30).map((s) => s.name).sort())
  })

  it('daily keeps the newest snapshot of each of the newest N days that have one', () => {
    // Day 1: 01:00, 13:00; day 2: none; day 3: 49:00 (Jan 3 01:00), 60:00 (Jan 3 12:00); day 4: 75:00.
    const snaps = at(1, 13, 49, 60, 75)
    expect(kept(snaps, { daily: 2 })).to.deep.equal(at(60, 75).map((s) => s.name).sort())
    // Days without a snapshot do not count: 3 days reach back to Jan 1.
    expect(kept(snaps, { daily: 3 })).to.deep.equal(at(13, 60, 75).map((s) => s.name).sort())
  })

  it('weekly uses ISO weeks (Monday start) and monthly calendar months, both UTC', () => {
    expect(isoWeek(new Date('2026-01-01T00:00:00Z'))).to.equal('2026-W01')
    expect(isoWeek(new Date('2025-12-29T00:00:00Z'))).to.equal('2026-W01')
    expect(isoWeek(new Date('2025-12-28T23:59:59Z'))).to.equal('2025-W52')
    expect(isoWeek(new Date('2027-01-03T12:00:00Z'))).to.equal('2026-W53')
    // Jan 1 (Thu, W01), Jan 4 (Sun, W01), Jan 5 (Mon, W02), Jan 12 (Mon, W03), Feb 2 (W06).
    const snaps = at(0, 3 * 24, 4 * 24, 11 * 24, 32 * 24)
    expect(kept(snaps, { weekly: 3 })).to.deep.equal(at(4 * 24, 11 * 24, 32 * 24).map((s) => s.name).sort())
    expect(kept(snaps, { monthly: 2 })).to.deep.equal(at(11 * 24, 32 * 24).map((s) => s.name).sort())
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
})
