import { expect } from 'chai'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunRecord } from '../../src/runs/history.js'
import { memoryRunHistory } from '../../src/tasks/memoryRunHistory.js'
import { resolveRestoreFolder } from '../../src/tasks/resolveRestoreFolder.js'
import { TaskRefusedError } from '../../src/tasks/TaskRefusedError.js'
import { TaskRunner } from '../../src/tasks/TaskRunner.js'

describe('tasks: TaskRunner with an in-memory RunHistory', () => {
  const setup = () => {
    const history = memoryRunHistory()
    const lines: string[] = []
    const runner = new TaskRunner({ history, log: (job, level, message) => lines.push(`${job} ${level} ${message}`), progressIntervalMs: 10 })
    return { history, lines, runner }
  }

  it('records a successful task with its bytes, files, snapshot and target, newest first', async () => {
    const { history, lines, runner } = setup()
    const view = runner.start({ job: 'j', kind: 'restore', snapshot: 's1', target: '/r/x', totalBytes: 100, trigger: 'api' }, async ({ meter }) => {
      meter.phase = 'restoring'
      meter.addBytes(100)
      meter.file('a/b.txt')
      return { summary: 'restored 1 file(s)', bytesWritten: 42 }
    })
    expect(view).to.include({ status: 'running', kind: 'restore', snapshot: 's1', target: '/r/x' })
    expect(runner.busy('j')).to.equal(true)
    await runner.whenDone('j')
    const ended = runner.current('j')!
    expect(ended).to.include({ status: 'success', summary: 'restored 1 file(s)' })
    expect(ended.progress).to.include({ kind: 'restore', bytesRead: 100, totalBytes: 100, percent: 100, filesRead: 1, currentFile: 'a/b.txt' })
    const [record] = history.list('j')
    expect(record).to.include({ job: 'j', kind: 'restore', trigger: 'api', result: 'success' })
    expect(record).to.include({ bytesRead: 100, bytesWritten: 42, filesRead: 1, snapshot: 's1', target: '/r/x' })
    expect(record!.error).to.equal(undefined)
    expect(Date.parse(record!.endedAt)).to.be.at.least(Date.parse(record!.startedAt))
    expect(lines).to.include('j info [restore] succeeded: restored 1 file(s)')

    runner.start({ job: 'j', kind: 'verify', snapshot: 's2', trigger: 'api' }, () => Promise.reject(new Error('part x: sha256 differs')))
    await runner.whenDone('j')
    const list = history.list('j')
    expect(list.map((r: RunRecord) => [r.kind, r.result, r.error])).to.deep.equal([
      ['verify', 'failed', 'part x: sha256 differs'],
      ['restore', 'success', undefined],
    ])
    expect(history.list('j', 1)).to.have.length(1)
  })

  it('refuses a second task of the same job with 409, allows another job, and cancels through the signal', async () => {
    const { history, runner } = setup()
    let release!: () => void
    const started = new Promise<void>((resolve) => (release = resolve))
    runner.start(
      { job: 'j', kind: 'restore', snapshot: 's', trigger: 'api' },
      ({ signal }) =>
        new Promise((_resolve, reject) => {
          release()
          signal.addEventListener('abort', () => reject(new Error('aborted by the signal')))
        }),
    )
    await started
    expect(() => runner.start({ job: 'j', kind: 'verify', snapshot: 's', trigger: 'api' }, async () => ({ summary: '' })))
      .to.throw(TaskRefusedError)
      .with.property('status', 409)
    runner.start({ job: 'other', kind: 'verify', snapshot: 's', trigger: 'api' }, async () => ({ summary: 'ok' }))
    expect(runner.cancel('j').status).to.equal('cancelling')
    await runner.whenDone('j')
    expect(runner.current('j')).to.include({ status: 'cancelled', error: 'cancelled' })
    expect(history.list('j')[0]).to.include({ result: 'cancelled', error: 'cancelled' })
    expect(() => runner.cancel('j'))
      .to.throw(TaskRefusedError)
      .with.property('status', 409)
    expect(runner.current('nobody')).to.equal(undefined)
  })
})

describe('tasks: following a task live (TaskRunner.follow)', () => {
  it('gives the latest progress at once, each snapshot after, then the record as in the history; an ended task its end at once', async () => {
    const history = memoryRunHistory()
    const runner = new TaskRunner({ history, log: () => {}, progressIntervalMs: 5 })
    expect(runner.follow('j', { progress: () => {}, end: () => {} })).to.equal(undefined)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const seen: { bytesRead: number; percent?: number; kind: string }[] = []
    const ends: RunRecord[] = []
    runner.start({ job: 'j', kind: 'verify', snapshot: 's', totalBytes: 1000, trigger: 'api' }, async ({ meter }) => {
      meter.addBytes(400)
      await gate
      meter.addBytes(600)
      return { summary: 'intact' }
    })
    const stop = runner.follow('j', { progress: (p) => seen.push(p), end: (r) => ends.push(r) })!
    expect(seen).to.have.length(1)
    expect(seen[0]).to.include({ kind: 'verify', bytesRead: 0 })
    // Wait for a tick that shows the 400 bytes read so far (the timer runs every 5 ms).
    while (!seen.some((p) => p.bytesRead === 400)) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(seen.find((p) => p.bytesRead === 400)).to.include({ percent: 40 })
    release()
    await runner.whenDone('j')
    expect(ends).to.have.length(1)
    expect(ends[0]).to.deep.equal(history.list('j')[0])
    expect(ends[0]).to.include({ kind: 'verify', result: 'success', bytesRead: 1000 })
    expect(seen.at(-1)).to.include({ bytesRead: 1000, percent: 100, phase: 'finishing' })
    stop()

    const late: RunRecord[] = []
    const unfollow = runner.follow('j', { progress: () => expect.fail('an ended task has no progress to follow'), end: (r) => late.push(r) })
    expect(late).to.deep.equal(ends)
    unfollow!()
  })
})

describe('tasks: resolveRestoreFolder', () => {
  let dir: string
  let root: string
  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'bd-roots-')))
    root = join(dir, 'root')
    mkdirSync(join(root, 'existing'), { recursive: true })
    mkdirSync(join(dir, 'root2'))
    writeFileSync(join(root, 'file'), 'x')
    symlinkSync(join(dir, 'root2'), join(root, 'link'))
    symlinkSync(root, join(dir, 'root-alias'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  const refused = async (path: string, why: RegExp) => {
    const err = await resolveRestoreFolder(path, [root]).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err, path).to.be.instanceOf(TaskRefusedError)
    expect((err as TaskRefusedError).status).to.equal(400)
    expect((err as Error).message).to.match(why)
  }

  it('accepts folders strictly inside a root, through a link to the root too, and says whether they exist', async () => {
    // Each result holds its parent open until released.
    const resolved = async (path: string, roots: string[]) => {
      const folder = await resolveRestoreFolder(path, roots)
      folder.release()
      return folder
    }
    expect(await resolved(join(root, 'new'), [root])).to.include({ path: join(root, 'new'), parent: root, exists: false, name: 'new' })
    expect(await resolved(join(root, 'existing'), [root])).to.include({ exists: true })
    expect(await resolved(join(dir, 'root-alias', 'new'), [root])).to.include({ path: join(root, 'new') })
    expect(await resolved(join(root, 'new') + '/', [`${root}/`])).to.include({ path: join(root, 'new') })
  })

  it('refuses "..", relative paths, a root itself, a sibling with the same prefix, links out, files and missing parents', async () => {
    await refused(`${root}/existing/../../root2/x`, /"\." and "\.\." steps/)
    await refused(`${root}/./x`, /"\." and "\.\." steps/)
    await refused('root/x', /absolute path/)
    await refused(root, /outside the allowed restore roots/)
    await refused(join(dir, 'root2', 'x'), /outside the allowed restore roots/)
    await refused(join(root, 'link', 'x'), /outside the allowed restore roots/)
    await refused(join(root, 'link'), /symbolic link/)
    await refused(join(root, 'file'), /not a folder/)
    await refused(join(root, 'a', 'b'), /parent folder does not exist/)
    const none = await resolveRestoreFolder(join(root, 'x'), []).then(
      () => undefined,
      (e: Error) => e.message,
    )
    expect(none).to.include('no restore roots are configured')
  })
})
