import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSse, type SseClient, type SseFrame } from '../api/support/sseClient.js'
import { validateSchema } from '../api/support/validateSchema.js'
import { fakeDumpTool, login, openFifo, runOnce, startDaemon, slowJob, writeConfig, type Daemon } from './support/slowDumpDaemon.js'

/** Frames until `accept` returns true for one (which is returned); fails when the stream closes first. */
async function frameUntil(client: SseClient, accept: (frame: SseFrame) => boolean, seen: SseFrame[] = []): Promise<SseFrame> {
  for (;;) {
    const frame = await client.next()
    if (!frame) throw new Error(`stream closed; frames: ${JSON.stringify(seen.slice(-3))}`)
    seen.push(frame)
    if (accept(frame)) return frame
  }
}

describe('progress and history: the real daemon process', function () {
  this.timeout(120_000)
  let dir: string
  let configFile: string
  let binDir: string
  let fifo: string
  let daemon: Daemon | undefined
  let cookie: string
  let components: Record<string, Record<string, unknown>>
  /** Bytes of the files of the local tree (what the run reads from it). */
  let siteBytes = 0
  const api = () => `${daemon!.url}/api/v1`
  const get = async (path: string) => fetch(`${api()}${path}`, { headers: { cookie } })
  const json = async (path: string) => {
    const res = await get(path)
    expect(res.status, path).to.equal(200)
    return res.json()
  }
  const matches = (body: unknown, name: string) => expect(validateSchema(body, { $ref: `#/components/schemas/${name}` }, components), name).to.deep.equal([])
  const post = (path: string) => fetch(`${api()}${path}`, { method: 'POST', headers: { cookie, origin: daemon!.url } })

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daemon-progress-'))
    ;({ binDir, fifo } = fakeDumpTool(dir))
    mkdirSync(join(dir, 'site', 'img'), { recursive: true })
    for (const [name, size] of [
      ['index.html', 1200],
      ['img/a.bin', 300_000],
      ['img/b.bin', 2_000_000],
    ] as const) {
      writeFileSync(join(dir, 'site', name), randomBytes(size))
      siteBytes += size
    }
    for (const name of ['a', 'b', 'quick']) mkdirSync(join(dir, `store-${name}`))
    configFile = await writeConfig(dir, {
      history: { limit: 3 },
      jobs: [
        slowJob(dir),
        {
          name: 'quick',
          compression: 'tar',
          sources: [{ type: 'local', name: 'site', path: join(dir, 'site') }],
          storages: [{ type: 'local', name: 'disk', path: join(dir, 'store-quick') }],
        },
      ],
    })
    daemon = await startDaemon(configFile, binDir)
    cookie = await login(daemon.url)
    components = (await (await fetch(`${api()}/openapi`)).json()).components.schemas
  })

  after(async () => {
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    rmSync(dir, { recursive: true, force: true })
  })

  it('needs the session; an unknown job is a 404 Problem; limit is validated', async () => {
    for (const path of ['/jobs/slow/progress', '/jobs/slow/history']) {
      const res = await fetch(`${api()}${path}`)
      expect(res.status, path).to.equal(401)
      expect(res.headers.get('content-type')).to.match(/application\/problem\+json/)
    }
    for (const path of ['/jobs/nope/progress', '/jobs/nope/history']) {
      const res = await get(path)
      expect(res.status, path).to.equal(404)
      const problem = await res.json()
      matches(problem, 'Problem')
      expect(problem.detail).to.include('nope')
    }
    for (const bad of ['0', '-1', 'x', '1.5']) {
      const res = await get(`/jobs/slow/history?limit=${bad}`)
      expect(res.status, bad).to.equal(400)
      expect((await res.json()).errors[0]).to.include({ location: 'query.limit' })
    }
    expect(await json('/jobs/slow/history')).to.deep.equal({ job: 'slow', runs: [] })
    // Idle: no progress field at all (never null), so the original web client sees its usual shape.
    expect(await json('/jobs/slow/status')).not.to.have.property('progress')
  })

  it('shows a run held in its dump: status field, /jobs and the live stream agree; the end event carries the record', async () => {
    const stream = await openSse(`${api()}/jobs/slow/progress`, { cookie })
    expect(stream.response.status).to.equal(200)
    expect(stream.response.headers.get('content-type')).to.match(/text\/event-stream/)
    const frames: SseFrame[] = []
    try {
      expect((await post('/jobs/slow/run')).status).to.equal(202)
      // The stand-in mysqldump opens the FIFO once the local tree is read: the run is now in the dump.
      const writer = await openFifo(fifo)
      const firstHalf = randomBytes(3 * 1024 * 1024)
      const secondHalf = randomBytes(1024 * 1024 + 17)
      writer.write(firstHalf)
      const held = await frameUntil(
        stream,
        (f) => f.event === 'progress' && JSON.parse(f.data).currentSource === 'db' && JSON.parse(f.data).bytesRead >= siteBytes + firstHalf.length,
        frames,
      )
      const progress = JSON.parse(held.data)
      matches(progress, 'RunProgress')
      expect(progress).to.include({ kind: 'backup', phase: 'dumping', currentSource: 'db', currentFile: 'app.sql', filesRead: 4 })
      // Nothing more can be read until the test writes again.
      expect(progress.bytesRead).to.equal(siteBytes + firstHalf.length)
      expect(progress.storages.map((s: { storage: string; done: boolean }) => [s.storage, s.done])).to.deep.equal([
        ['disk-a', false],
        ['disk-b', false],
      ])
      // The first run of a job with a database source has nothing to estimate from.
      expect(progress).not.to.have.any.keys('totalBytes', 'percent', 'etaSeconds')

      const status = await json('/jobs/slow/status')
      matches(status, 'JobStatus')
      expect(status.status).to.equal('running')
      expect(status.progress).to.include({ phase: 'dumping', currentSource: 'db', bytesRead: siteBytes + firstHalf.length })
      const list = await json('/jobs')
      matches(list, 'JobList')
      const byName = Object.fromEntries(list.jobs.map((j: { name: string }) => [j.name, j]))
      expect(byName.slow.progress.bytesRead).to.equal(siteBytes + firstHalf.length)
      expect(byName.quick).not.to.have.property('progress')

      writer.end(secondHalf)
      const end = await frameUntil(stream, (f) => f.event === 'end', frames)
      const record = JSON.parse(end.data)
      matches(record, 'RunRecord')
      const bytesRead = siteBytes + firstHalf.length + secondHalf.length
      expect(record).to.include({ job: 'slow', kind: 'backup', trigger: 'manual', result: 'success', bytesRead, filesRead: 4 })
      expect(record.snapshot).to.match(/^slow-.*\.tar\.gz$/)
      expect(record.bytesWritten).to.be.above(0)
      expect(record).not.to.have.property('error')
      const progressFrames = frames.filter((f) => f.event === 'progress').map((f) => JSON.parse(f.data))
      for (const frame of progressFrames) matches(frame, 'RunProgress')
      // Counts only grow.
      for (let i = 1; i < progressFrames.length; i++) expect(progressFrames[i].bytesRead).to.be.at.least(progressFrames[i - 1].bytesRead)

      const { runs } = await json('/jobs/slow/history')
      expect(runs).to.deep.equal([record])
      // Ended: the field is gone again (the tracker is dropped once the job is idle).
      const after = await frameUntilIdle()
      expect(after).not.to.have.property('progress')
    } finally {
      stream.close()
    }
  })

  it('keeps the newest `history.limit` runs per job across a restart, and records CLI runs as such', async () => {
    // The other job's history as it is now (the held-run test may have added to it): it must stay as it is.
    const slowRuns = (await json('/jobs/slow/history')).runs
    const ended: string[] = []
    for (let i = 0; i < 4; i++) {
      const stream = await openSse(`${api()}/jobs/quick/progress`, { cookie })
      try {
        expect((await post('/jobs/quick/run')).status).to.equal(202)
        ended.push(JSON.parse((await frameUntil(stream, (f) => f.event === 'end')).data).id)
      } finally {
        stream.close()
      }
      await frameUntilIdle('quick')
    }
    const before = (await json('/jobs/quick/history')).runs
    matches({ job: 'quick', runs: before }, 'RunHistory')
    expect(before.map((r: { id: string }) => r.id)).to.deep.equal(ended.slice(-3).reverse())
    for (const run of before) expect(run).to.include({ result: 'success', trigger: 'manual', bytesRead: siteBytes, filesRead: 3 })
    expect((await json('/jobs/quick/history?limit=2')).runs).to.deep.equal(before.slice(0, 2))

    expect(await daemon!.stop(), daemon!.output()).to.equal(0)
    daemon = undefined
    const file = join(dir, 'data', 'history', 'quick.json')
    expect(statSync(file).mode & 0o777).to.equal(0o600)
    expect(await runOnce(configFile, 'quick', binDir)).to.equal(0)
    daemon = await startDaemon(configFile, binDir)
    cookie = await login(daemon.url)

    const restarted = (await json('/jobs/quick/history')).runs
    expect(restarted).to.have.length(3)
    expect(restarted[0]).to.include({ trigger: 'cli', result: 'success', bytesRead: siteBytes })
    expect(restarted.slice(1)).to.deep.equal(before.slice(0, 2))
    // The other job's history is its own, and survives the restart.
    expect((await json('/jobs/slow/history')).runs).to.deep.equal(slowRuns)
  })

  /** Polls the status until the job is idle (the end event comes just before the job frees its slot). */
  async function frameUntilIdle(job = 'slow'): Promise<Record<string, unknown>> {
    for (;;) {
      const status = await json(`/jobs/${job}/status`)
      if (status.status === 'idle') return status
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
})
