/**
 * @module test/repository/restic/resticRuns
 * How runs are read back from restic's snapshot list (`groupRuns`): a run is committed only with its
 * commit and every source snapshot the commit names (`part=`), as many as its snapshots announce
 * (`sources=`). The old layout (a commit snapshot of its own; a commit saved early without one of its
 * sources is a leftover) and today's (the commit on the last source's snapshot, a killed `restic tag`
 * leaving the untagged original as a stray).
 */
import { expect } from 'chai'
import { groupRuns, type ResticSnapshot } from '../../../src/repository/restic/resticRuns.js'

const run = 'site-2026-03-01T02-00-00-000Z'
const base = ['job=site', 'daemon=d1', `run=${run}`]
const files: ResticSnapshot = { id: 'a1', time: '2026-03-01T02:00:01Z', paths: ['/srv/files'], tags: [...base, 'source=files'] }
const db: ResticSnapshot = { id: 'b2', time: '2026-03-01T02:00:02Z', paths: ['/db.tar'], tags: [...base, 'source=db', 'dump'] }
const commit: ResticSnapshot = {
  id: 'c3',
  time: '2026-03-01T02:00:00.5Z',
  paths: ['/.backup-daemon-run.json'],
  tags: [...base, 'commit', 'size=3024', 'part=files=2000', 'part=db=1000'],
}

describe('repository/restic: runs read from the snapshot list (the old layout)', () => {
  it('a commit with every part is a committed run, its sizes from the tags (whatever the snapshots order)', () => {
    const [read] = groupRuns([commit, db, files])
    expect(read!.commit?.id).to.equal('c3')
    expect(read!.size).to.equal(3024)
    expect(read!.sources.map((s) => [s.name, s.size])).to.deep.equal([
      ['files', 2000],
      ['db', 1000],
    ])
  })

  it('a commit without one of its parts leaves the run a leftover (never listed, removed by removeLeftovers)', () => {
    const [read] = groupRuns([commit, files])
    expect(read!.commit).to.equal(undefined)
    expect(read!.ids.sort()).to.deep.equal(['a1', 'c3'])
  })
})

describe('repository/restic: runs of the layout with no commit snapshot (issue 42)', () => {
  const tags = [...base, 'sources=2']
  const db2: ResticSnapshot = { id: 'd1', time: '2026-03-01T02:00:01Z', paths: ['/db.tar'], tags: [...tags, 'source=db', 'dump'] }
  const untagged: ResticSnapshot = { id: 'f1', time: '2026-03-01T02:00:02Z', paths: ['/srv/files'], tags: [...tags, 'source=files'] }
  const tagged: ResticSnapshot = { ...untagged, id: 'f2', tags: [...untagged.tags!, 'commit', 'size=3024', 'part=db=1000', 'part=files=2000'] }

  it('the commit on the last source: a committed run, each source once, its sizes from the tags', () => {
    const [read] = groupRuns([tagged, db2])
    expect(read!.commit?.id).to.equal('f2')
    expect(read!.size).to.equal(3024)
    expect(read!.sources.map((s) => [s.name, s.id, s.size])).to.deep.equal([
      ['db', 'd1', 1000],
      ['files', 'f2', 2000],
    ])
    expect(read!.strays).to.equal(undefined)
  })

  it('killed before the tag: no commit, a leftover of both snapshots', () => {
    const [read] = groupRuns([db2, untagged])
    expect(read!.commit).to.equal(undefined)
    expect(read!.ids.sort()).to.deep.equal(['d1', 'f1'])
  })

  it('killed inside the tag (the copy saved, the original not removed): committed, the original a stray, in either order', () => {
    for (const order of [
      [db2, untagged, tagged],
      [tagged, untagged, db2],
    ]) {
      const [read] = groupRuns(order)
      expect(read!.commit?.id).to.equal('f2')
      expect(read!.sources.map((s) => s.id)).to.deep.equal(['d1', 'f2'])
      expect(read!.strays).to.deep.equal(['f1'])
    }
  })

  it('fewer sources than announced, or a part not there: a leftover', () => {
    const alone = { ...tagged, tags: [...base, 'sources=2', 'source=files', 'commit', 'size=2024', 'part=files=2000'] }
    expect(groupRuns([alone])[0]!.commit).to.equal(undefined)
    expect(groupRuns([tagged])[0]!.commit).to.equal(undefined)
  })
})
