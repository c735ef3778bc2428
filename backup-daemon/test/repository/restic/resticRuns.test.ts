/**
 * @module test/repository/restic/resticRuns
 * How runs are read back from restic's snapshot list (`groupRuns`): a run is committed only with its
 * commit snapshot and every source snapshot the commit names (`part=`); a commit saved without one of
 * them (an early commit whose daemon was killed: its stdin ended) leaves the run a leftover.
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

describe('repository/restic: runs read from the snapshot list', () => {
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
