/**
 * Issue 28 items 2 and 7, against a real daemon process restoring real snapshots:
 * - 2: a folder inside the restore root swapped for a link to a folder outside right after the 202:
 *   the restore fails, and nothing is written outside (before: "restored into …" while the files landed
 *   outside).
 * - 7: two restores (of two jobs) into the same folder at once: the second is a 409 Problem (before: both
 *   202, one replacing the other's files).
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DaemonProcess } from '../api/support/daemonProcess.js'
import { ended, restoreServer, serveConfig, writeRandomTree, type TaskBody, type TaskClient } from '../tasks/support.js'

const password = 'restore-target-password'

describe('security: a restore holds its target (real daemon)', function () {
  this.timeout(180_000)
  let dir: string
  let root: string
  let outside: string
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  const snapshots: Record<string, string> = {}

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sec-restore-'))
    // Many files: restoring takes long enough for a second request or a swap to come while it runs.
    const big = join(dir, 'big')
    writeRandomTree(big, 30, 100)
    root = join(dir, 'restore-root')
    outside = join(dir, 'outside')
    mkdirSync(root)
    mkdirSync(outside)
    const storage = (name: string) => [{ type: 'local', name: 'disk', path: join(dir, 'storage', name) }]
    const config = {
      dataDir: join(dir, 'data'),
      server: await restoreServer(password),
      restore: { roots: [root] },
      jobs: ['a', 'b'].map((name) => ({ name, sources: [{ type: 'local', name: 'big', path: big }], storages: storage(name) })),
    }
    ;({ daemon, api } = await serveConfig(dir, config, password))
    for (const job of ['a', 'b']) snapshots[job] = await api.backup(job)
  })

  after(async () => {
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const restore = async (job: string, path: string) => {
    const res = await api.post(`/jobs/${job}/backups/${encodeURIComponent(snapshots[job]!)}/restore`, { target: { kind: 'files', path } })
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { task: TaskBody; detail?: string } }
  }

  it('item 7: a second restore into the same folder (or one inside it) while the first runs is a 409 Problem', async () => {
    mkdirSync(join(root, 'same'))
    const first = await restore('a', join(root, 'same'))
    expect(first.status).to.equal(202)
    const second = await restore('b', join(root, 'same'))
    const nested = await restore('b', join(root, 'same', 'd0'))
    // The overlap this test is about: the first restore was still running when both answers came.
    const firstNow = await (await api.get('/jobs/a/tasks/current')).json()
    expect((firstNow as { task: TaskBody }).task.status, 'the first restore ended before the second was asked').to.equal('running')
    expect(second.status, JSON.stringify(second.body)).to.equal(409)
    expect(second.type).to.include('application/problem+json')
    expect(second.body.detail).to.match(/a restore of job "a" into .*same is running/)
    expect(nested.status).to.equal(409)
    const done = await api.waitTask('a', ended)
    expect(done.status, done.error).to.equal('success')
    // Once it ended, the folder is free again.
    const again = await restore('b', join(root, 'same-later'))
    expect(again.status).to.equal(202)
    expect((await api.waitTask('b', ended)).status).to.equal('success')
  })

  it('item 2: a folder on the target path swapped for a link to outside during the restore fails it; nothing is written outside', async () => {
    mkdirSync(join(root, 'race'))
    const started = await restore('a', join(root, 'race', 't'))
    expect(started.status).to.equal(202)
    // The swap, right after the 202 (the restore is still reading the snapshot into its temporary folder).
    renameSync(join(root, 'race'), join(root, 'race-moved'))
    symlinkSync(outside, join(root, 'race'))
    const task = await api.waitTask('a', ended)
    expect(readdirSync(outside), 'written outside the restore root').to.deep.equal([])
    expect(task.status, task.summary).to.equal('failed')
    expect(task.error).to.match(/moved or replaced .* during the restore; nothing was restored/)
    expect(readdirSync(join(root, 'race-moved')), 'the temporary folder is removed').to.deep.equal([])
  })
})
