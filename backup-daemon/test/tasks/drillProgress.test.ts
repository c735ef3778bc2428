/**
 * A drill's and a restore's progress on many small files (issue 42: bytes alone, a drill of a million files
 * sat at "99.0%" for the 7 minutes it read them back): through the API of a real daemon, a drill of 30,000
 * tiny files is polled as it runs. Once every byte is read, while it still counts files (it reads them back),
 * its percent is well under 99 and its ETA is there; it ends at 100. A restore of the same snapshot moves by
 * files too, its percent never going back.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DaemonProcess } from '../api/support/daemonProcess.js'
import { ended, restoreServer, serveConfig, type TaskBody, type TaskClient } from './support.js'

const password = 'drill-progress-password'
const files = 30_000

describe('tasks: progress counts files as well as bytes (real daemon, many small files)', function () {
  this.timeout(300_000)
  let dir: string
  let daemon: DaemonProcess | undefined
  let api: TaskClient

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bd-drill-progress-'))
    for (let i = 0; i < files; i++) {
      if (i % 1000 === 0) mkdirSync(join(dir, 'tree', `d${i / 1000}`), { recursive: true })
      writeFileSync(join(dir, 'tree', `d${Math.floor(i / 1000)}`, `f${i}`), String(i))
    }
    const config = {
      dataDir: join(dir, 'data'),
      server: await restoreServer(password),
      restore: { roots: [join(dir, 'restores')] },
      jobs: [
        {
          name: 'tiny',
          sources: [{ type: 'local', name: 'files', path: join(dir, 'tree') }],
          storages: [{ type: 'local', name: 'disk', path: join(dir, 'disk') }],
        },
      ],
    }
    mkdirSync(join(dir, 'restores'))
    ;({ daemon, api } = await serveConfig(dir, config, password))
  })
  after(async () => {
    await daemon?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Every progress the task showed, polled every 20 ms until it ended. */
  const follow = async (): Promise<{ seen: NonNullable<TaskBody['progress']>[]; done: TaskBody }> => {
    const seen: NonNullable<TaskBody['progress']>[] = []
    const done = await api.waitTask('tiny', (task) => {
      if (task.progress && task.status === 'running') seen.push(task.progress)
      return ended(task)
    })
    return { seen, done }
  }

  it('a drill reading back its files is not at 99%: its percent follows the files, with an ETA', async () => {
    await api.backup('tiny')
    expect((await api.post('/jobs/tiny/drill')).status).to.equal(202)
    const { seen, done } = await follow()
    expect(done.status, done.error).to.equal('success')
    expect(done.progress?.percent).to.equal(100)
    // Every byte read (verify, then the unpack), files still being counted: the comparison.
    const comparing = seen.filter((p) => p.totalBytes && p.bytesRead >= p.totalBytes && p.filesRead > files * 1.2 && p.filesRead < files * 1.8)
    expect(comparing.length, `no progress seen while comparing: ${JSON.stringify(seen.slice(-5))}`).to.be.greaterThan(0)
    for (const progress of comparing) expect(progress.percent, JSON.stringify(progress)).to.be.within(50, 95)
    expect(comparing.some((p) => (p as { etaSeconds?: number }).etaSeconds !== undefined)).to.equal(true)
  })

  it('a restore of them moves by files too, and never goes back', async () => {
    const snapshot = (await api.backup('tiny')) as string
    const res = await api.post(`/jobs/tiny/backups/${snapshot}/restore`, { target: { kind: 'files', path: join(dir, 'restores', 'one') } })
    expect(res.status, await res.clone().text()).to.equal(202)
    const { seen, done } = await follow()
    expect(done.status, done.error).to.equal('success')
    const percents = seen.map((p) => p.percent ?? 0)
    for (let i = 1; i < percents.length; i++) expect(percents[i]).to.be.at.least(percents[i - 1]!)
    // Half the entries unpacked is about half the work (each file weighs more than its few bytes).
    const halfway = seen.find((p) => p.filesRead >= files / 2 && p.filesRead < files * 0.8)
    expect(halfway, `no progress seen halfway: ${JSON.stringify(seen.slice(-5))}`).to.not.equal(undefined)
    expect(halfway!.percent).to.be.within(30, 85)
  })
})
