/**
 * Issue 39 #4: `kill -9` of the daemon, run as an unprivileged user (nobody, as under systemd), leaves no
 * child running and, after the next start, no scratch behind. One test per kind of child and scratch:
 * - a run into a restic repository (restic slowed by `--limit-upload`, so it would go on for a minute):
 *   restic stops at once and removes its lock; the process's private temporary folder (restic's scratch
 *   inside) is removed at the next start, and the start says so in the system log;
 * - a drill on a temporary PostgreSQL server, killed while a database tool (pg_restore, a stand-in that
 *   never ends) feeds it: the server and the tool stop at once; the drill's scratch folder and the server's
 *   data and socket folder are removed at the next start;
 * - a start under the pid of the process that was killed (a container's daemon has the same low pid at
 *   every start): that process's folder goes too.
 *
 * Runs alone (scripts/run-tests.mjs): it looks for any process of nobody (pgrep -u nobody), which another file's drill as nobody would be.
 */
import { expect } from 'chai'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { restic } from '../../src/repository/restic/resticProcess.js'
import { findPostgresBin } from '../../src/sources/postgresql/tempServer.js'
import { privateTempPrefix, sweepPrivateTempFolders } from '../../src/daemon/privateTempFolder.js'
import { waitFor } from '../engine/helpers.js'
import { requireRestic } from '../support/requireRestic.js'
import { daemonBin } from '../support/runCli.js'
import { nobodyFolder, noProcessOfNobody } from '../support/serviceUser.js'

const asNobody = ['--reuid=nobody', '--regid=nogroup', '--clear-groups']

/** `backup-daemon <args>` as nobody in `dir`; setpriv execs node in place, so the pid is the daemon's. */
function daemonAsNobody(dir: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; output(): string } {
  const child = spawn('setpriv', [...asNobody, process.execPath, daemonBin, ...args, '--config', 'backup-daemon.yaml'], {
    cwd: dir,
    env: { ...process.env, FORCE_COLOR: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return { child, output: () => out }
}

const nobodysProcesses = (name: string) => spawnSync('pgrep', ['-u', 'nobody', '-x', name], { encoding: 'utf8' }).stdout.trim()

/** The private temporary folders (`daemon/privateTempFolder`) of process `pid`. */
const tempFoldersOf = async (pid: number) => (await readdir(tmpdir())).filter((name) => name.startsWith(`${privateTempPrefix}${pid}-`))

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** The next start: `serve` as nobody until it listens, then SIGTERM; resolves with its system log. */
async function restart(dir: string, env: Record<string, string> = {}): Promise<string> {
  const daemon = daemonAsNobody(dir, ['serve'], env)
  let ended = false
  const exited = new Promise((resolve) => daemon.child.once('exit', resolve)).then(() => (ended = true))
  try {
    await waitFor(() => ended || /listening on http/.test(daemon.output()), 30_000, 'the daemon to listen')
    expect(ended, `the daemon exited:\n${daemon.output()}`).to.equal(false)
  } finally {
    daemon.child.kill('SIGTERM')
    await exited
  }
  return readFile(join(dir, 'data', 'logs', 'system.log'), 'utf8')
}

const header = `dataDir: ./data
server: { address: "127.0.0.1:0" }
logs: { directory: ./data/logs }
jobs:
`

describe('security: kill -9 of the daemon leaves no child running and no scratch after the next start (as nobody)', function () {
  this.timeout(120_000)

  it('restic: stops with the daemon and removes its lock; the run’s temporary folder goes at the next start', async () => {
    await requireRestic()
    const { dir, remove } = await nobodyFolder('bd-killed-restic-')
    const env = { RESTIC_TEST_PASSWORD: 'killed daemon passphrase' }
    try {
      await mkdir(join(dir, 'src'), { mode: 0o755 })
      await writeFile(join(dir, 'src', 'blob.bin'), randomBytes(3 << 20), { mode: 0o644 })
      const job = `  - name: slow
    sources: [{ type: local, name: files, path: ./src }]
    storages:
      # 64 KiB/s: about 50 s for the folder, far longer than the test waits.
      - { type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD, extraParams: ["--limit-upload", "64"] }
`
      await writeFile(join(dir, 'backup-daemon.yaml'), header + job, { mode: 0o644 })
      const run = daemonAsNobody(dir, ['run', 'slow'], env)
      const pid = run.child.pid!
      await waitFor(() => /backing up source "files"/.test(run.output()) && nobodysProcesses('restic') !== '', 60_000, `restic backing up:\n${run.output()}`)
      const [temp] = await tempFoldersOf(pid)
      expect(temp, 'the run’s private temporary folder').to.be.a('string')
      expect(
        (await readdir(join(tmpdir(), temp!))).some((name) => name.startsWith('backup-daemon-restic-')),
        'restic’s scratch inside it',
      ).to.equal(true)

      await kill9(run.child)
      await noProcessOfNobody('-x', 'restic', 'restic process')
      // SIGINT from the kernel: restic removed its own lock on the way out.
      const target = { repository: join(dir, 'repo'), password: env.RESTIC_TEST_PASSWORD, cacheDir: join(dir, 'root-cache') }
      expect((await restic(target, ['list', 'locks', '--no-lock'])).trim(), 'locks left in the repository').to.equal('')
      expect(await tempFoldersOf(pid), 'still there before the next start').to.have.length(1)

      const log = await restart(dir, env)
      expect(await tempFoldersOf(pid), 'after the next start').to.deep.equal([])
      expect(log).to.include(`removed ${join(tmpdir(), temp!)}, the temporary folder of a daemon process that did not exit (killed?)`)
    } finally {
      await remove()
    }
  })

  it('a drill: its temporary PostgreSQL server and a tool feeding it stop with the daemon; the drill’s folders go at the next start', async () => {
    const { dir, remove } = await nobodyFolder('bd-killed-drill-')
    try {
      // The installed server binaries, a pg_dump that writes a stand-in dump and a pg_restore that never ends.
      const realBin = await findPostgresBin()
      const bin = join(dir, 'pgbin')
      await mkdir(bin, { mode: 0o755 })
      for (const name of ['initdb', 'postgres', 'psql']) await symlink(join(realBin, name), join(bin, name))
      await writeFile(join(bin, 'pg_dump'), '#!/bin/sh\nprintf "a stand-in dump\\n"\n')
      await writeFile(join(bin, 'pg_restore'), '#!/bin/sh\nexec sleep 600\n')
      for (const name of ['pg_dump', 'pg_restore']) await chmod(join(bin, name), 0o755)
      const job = `  - name: shop
    compression: tar
    drill: { databaseServer: temporary }
    sources: [{ type: postgresql, name: pg, database: shop, host: /nonexistent, pgDump: ${join(bin, 'pg_dump')} }]
    storages: [{ type: local, name: store, path: ./store }]
`
      await writeFile(join(dir, 'backup-daemon.yaml'), header + job, { mode: 0o644 })
      const backup = daemonAsNobody(dir, ['run', 'shop'])
      const code = await new Promise((resolve) => backup.child.once('exit', resolve))
      expect(code, backup.output()).to.equal(0)

      const drill = daemonAsNobody(dir, ['drill', 'shop'])
      const pid = drill.child.pid!
      await waitFor(() => nobodysProcesses('postgres') !== '' && nobodysProcesses('sleep') !== '', 60_000, `the server and pg_restore:\n${drill.output()}`)
      const drills = join(dir, 'data', 'drills')
      const [scratch] = await readdir(drills)
      expect(scratch).to.match(new RegExp(`^drill-${pid}-`))
      const [temp] = await tempFoldersOf(pid)
      expect(
        (await readdir(join(tmpdir(), temp!))).some((name) => name.startsWith('backup-daemon-drill-')),
        'the server’s folder in the private one',
      ).to.equal(true)

      await kill9(drill.child)
      await noProcessOfNobody('-x', 'postgres', 'temporary PostgreSQL server')
      await noProcessOfNobody('-x', 'sleep', 'pg_restore stand-in')

      const log = await restart(dir)
      expect(await readdir(drills), 'the drill’s scratch folder').to.deep.equal([])
      expect(existsSync(join(tmpdir(), temp!)), 'the server’s data and socket folder').to.equal(false)
      expect(log)
        .to.include(`removed ${scratch}`)
        .and.include(`removed ${join(tmpdir(), temp!)}`)
    } finally {
      await remove()
    }
  })

  it('a start under the killed process’s own pid (a container) sweeps its folder too; a live process’s, a link and a stranger’s name stay', async () => {
    const base = await mkdtemp(join(tmpdir(), 'bd-killed-sweep-'))
    try {
      const named = (pid: number) => join(base, `${privateTempPrefix}${pid}-AbC123`)
      const killed = named(process.pid)
      const live = named(process.ppid)
      for (const dir of [killed, live]) await mkdir(join(dir, 'backup-daemon-restic-x'), { recursive: true })
      const link = named(2 ** 22 + 1)
      await symlink(killed, link)
      await mkdir(join(base, `${privateTempPrefix}not-a-pid`))
      expect(sweepPrivateTempFolders(base)).to.deep.equal([killed])
      expect((await readdir(base)).sort()).to.deep.equal([link, live, join(base, `${privateTempPrefix}not-a-pid`)].map((p) => p.slice(base.length + 1)).sort())
    } finally {
      await rm(base, { recursive: true, force: true })
    }
  })
})
