/**
 * A run or task killed with `kill -9` is in the history after the next start (issue 38), and counted: a
 * backup started from the API of a real daemon (held in its `beforeScript`) and a drill started with the
 * CLI (slowed by `--limit-download`), each killed mid-way; the next `serve` lists both as failed under
 * the ids they started with (sorting with the rest, newest first), says why, and counts them in
 * `backup_daemon_runs_total{status="failed"}` and `backup_daemon_drill_failures_total`.
 */
import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { RunRecord } from '../../src/runs/history.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { daemonBin, runCli } from '../support/runCli.js'

function start(dir: string, args: string[]): { child: ChildProcess; output(): string } {
  const child = spawn(process.execPath, [daemonBin, ...args, '--config', 'backup-daemon.yaml'], {
    cwd: dir,
    env: { ...process.env, FORCE_COLOR: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return { child, output: () => out }
}

async function serve(dir: string): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const daemon = start(dir, ['serve'])
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(daemon.output())?.[1], 30_000, 'the daemon to listen')
  return {
    url,
    child: daemon.child,
    stop: async () => {
      const exited = new Promise((resolve) => daemon.child.once('exit', resolve))
      daemon.child.kill('SIGTERM')
      await exited
    },
  }
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** The notes written so far: a note is written as `<id>.json.tmp` and renamed, so a `.tmp` one is still being written. */
const notesIn = (dir: string) =>
  existsSync(join(dir, 'data', 'in-flight')) ? readdirSync(join(dir, 'data', 'in-flight')).filter((name) => name.endsWith('.json')) : []
/** The kinds of the runs and tasks noted in flight. */
const notedKinds = (dir: string) =>
  notesIn(dir).map((name) => (JSON.parse(readFileSync(join(dir, 'data', 'in-flight', name), 'utf8')) as { kind: string }).kind)

describe('history: a run and a drill killed with kill -9 are recorded as failed at the next start, and counted', function () {
  this.timeout(90_000)
  let dir: string
  let remove: () => Promise<void>

  before(async () => {
    ;({ dir, remove } = await tempDir('bd-killed-records-'))
    await mkdir(join(dir, 'site'))
    await writeFile(join(dir, 'site', 'page.bin'), randomBytes(512 * 1024))
    await writeFile(
      join(dir, 'backup-daemon.yaml'),
      `dataDir: ./data
server: { address: "127.0.0.1:0", permissions: { allowManualRun: true, allowRestore: true } }
logs: { directory: ./data/logs }
jobs:
  - name: held
    beforeScript: sleep 60
    sources: [{ type: local, name: files, path: ./site }]
    storages: [{ type: local, name: disk, path: ./store-held }]
  - name: drilled
    compression: tar
    sources: [{ type: local, name: files, path: ./site }]
    storages: [{ type: local, name: disk, path: ./store-drilled }]
`,
    )
  })
  after(() => remove?.())

  it('records the killed backup and the killed CLI drill under their own ids, newest first, and counts both', async () => {
    const made = await runCli(['run', 'drilled', '--config', 'backup-daemon.yaml'], { cwd: dir })
    expect(made.code, made.out).to.equal(0)

    // A backup from the API, held in its beforeScript, and the daemon killed.
    const first = await serve(dir)
    expect((await fetch(`${first.url}/api/v1/jobs/held/run`, { method: 'POST' })).status).to.equal(202)
    await waitFor(() => notedKinds(dir).includes('backup'), 10_000, 'the run to be noted')
    await kill9(first.child)

    const history = async (url: string, job: string) => ((await (await fetch(`${url}/api/v1/jobs/${job}/history`)).json()) as { runs: RunRecord[] }).runs
    const second = await serve(dir)
    try {
      expect(notesIn(dir)).to.deep.equal([])
      const [held] = await history(second.url, 'held')
      expect(held).to.include({ kind: 'backup', trigger: 'manual', result: 'failed' })
      expect(held!.error).to.match(/^interrupted: the process running the backup \(pid \d+\) stopped before it ended \(killed or crashed\)/)
      expect(await (await fetch(`${second.url}/metrics`)).text()).to.include('backup_daemon_runs_total{job="held",status="failed"} 1')
    } finally {
      await second.stop()
    }

    // A drill from the CLI, reading 64 KiB/s of a 512 KiB snapshot, killed once it started.
    const drill = start(dir, ['drill', 'drilled', '--limit-download', '64'])
    await waitFor(() => notedKinds(dir).includes('drill'), 20_000, 'the drill to be noted')
    await kill9(drill.child)

    const third = await serve(dir)
    try {
      expect(notesIn(dir)).to.deep.equal([])
      const drilled = await history(third.url, 'drilled')
      expect(drilled.map((r) => `${r.kind} ${r.trigger} ${r.result}`)).to.deep.equal(['drill cli failed', 'backup cli success'])
      expect(drilled[0]!.error).to.match(/^interrupted: the process running the drill/)
      // Ids sort by start: the drill's is the newer.
      expect(drilled[0]!.id > drilled[1]!.id).to.equal(true)
      expect(await (await fetch(`${third.url}/metrics`)).text()).to.include('backup_daemon_drill_failures_total{job="drilled"} 1')
    } finally {
      await third.stop()
    }
  })
})
