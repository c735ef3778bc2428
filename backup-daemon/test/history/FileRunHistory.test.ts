import { expect } from 'chai'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileRunHistory } from '../../src/engine/history/FileRunHistory.js'
import { runRecordId } from '../../src/runs/runRecordId.js'
import type { RunRecord } from '../../src/runs/history.js'

const record = (job: string, at: number, extra: Partial<RunRecord> = {}): RunRecord => {
  const started = new Date(Date.UTC(2026, 0, 1) + at * 60_000)
  return {
    id: runRecordId(started),
    job,
    kind: 'backup',
    trigger: 'schedule',
    startedAt: started.toISOString(),
    endedAt: new Date(started.getTime() + 1000).toISOString(),
    durationMs: 1000,
    result: 'success',
    bytesRead: at * 10,
    bytesWritten: at * 5,
    ...extra,
  }
}

describe('history: FileRunHistory (files under the state dir)', () => {
  let dir: string
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'run-history-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('keeps the newest `limit` runs per job, newest first, in a 0600 file another instance reads back', async () => {
    const history = new FileRunHistory({ dataDir: dir, limit: 3 })
    const written = [1, 2, 3, 4, 5].map((at) => record('nightly', at))
    // Out of order on purpose: the list is by id (start time), not by append order.
    for (const r of [written[0]!, written[2]!, written[1]!, written[4]!, written[3]!]) await history.append(r)
    await history.append(record('other', 9, { result: 'failed', error: 'storage "disk" failed: ENOSPC' }))
    expect(history.list('nightly').map((r) => r.bytesRead)).to.deep.equal([50, 40, 30])
    expect(history.list('nightly', 1).map((r) => r.bytesRead)).to.deep.equal([50])
    expect(history.list('other')[0]).to.include({ result: 'failed', error: 'storage "disk" failed: ENOSPC' })
    expect(history.list('never')).to.deep.equal([])
    const file = join(dir, 'history', 'nightly.json')
    expect(statSync(file).mode & 0o777).to.equal(0o600)
    expect(statSync(join(dir, 'history')).mode & 0o777).to.equal(0o700)
    expect(JSON.parse(readFileSync(file, 'utf8')).runs).to.have.length(3)

    const reopened = new FileRunHistory({ dataDir: dir, limit: 2 })
    expect(reopened.list('nightly').map((r) => r.bytesRead)).to.deep.equal([50, 40, 30])
    // A lower limit applies at the next append.
    await reopened.append(record('nightly', 6))
    expect(reopened.list('nightly').map((r) => r.bytesRead)).to.deep.equal([60, 50])
    // The first instance sees the other's write (a `backup-daemon run` beside the daemon).
    expect(history.list('nightly').map((r) => r.bytesRead)).to.deep.equal([60, 50])
  })

  it('a corrupt file is moved aside with a warning and the history starts empty', async () => {
    mkdirSync(join(dir, 'history'))
    writeFileSync(join(dir, 'history', 'nightly.json'), '{"version":1,"runs":[{"id"')
    const warnings: string[] = []
    const history = new FileRunHistory({ dataDir: dir, warn: (m) => warnings.push(m) })
    expect(history.list('nightly')).to.deep.equal([])
    expect(warnings).to.have.length(1)
    expect(warnings[0]).to.match(/run history of job "nightly" could not be read/)
    expect(existsSync(join(dir, 'history', 'nightly.json.corrupt'))).to.equal(true)
    await history.append(record('nightly', 1))
    expect(history.list('nightly')).to.have.length(1)
  })

  it('job names never form a path outside the history folder', async () => {
    const history = new FileRunHistory({ dataDir: dir })
    await history.append(record('../escape', 1))
    await history.append(record('..', 2))
    expect(existsSync(join(dir, 'escape.json'))).to.equal(false)
    expect(history.list('../escape')).to.have.length(1)
    expect(history.list('..')).to.have.length(1)
  })

  it('ids sort by start time as plain strings', () => {
    const ids = [5, 1, 3].map((at) => runRecordId(new Date(Date.UTC(2026, 0, 1) + at * 1000)))
    expect([...ids].sort()).to.deep.equal([ids[1], ids[2], ids[0]])
    expect(runRecordId(new Date(0))).not.to.equal(runRecordId(new Date(0)))
  })
})
