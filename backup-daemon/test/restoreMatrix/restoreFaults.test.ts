/**
 * The restore matrix's faults (issue 37): a restore when the storage dies mid-restore (an SFTP server behind
 * a TCP proxy that cuts every connection once the restore pass has begun), when the target's disk is full (a
 * 2 MiB tmpfs mounted inside the restore root: needs root, as CI runs), and when the process restoring is
 * killed (SIGKILL) mid-restore and the next one starts; each through the API (the daemon restores, and is
 * started again after its kill) and the CLI (`backup-daemon restore --to`, killed, then the next `verify`
 * puts things right). Each must leave the target as the message says: "as it was" means no target and no
 * temporary folder; a completed merge means the whole tree. The process must survive the fault it reports.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { hashPassword } from '../../src/auth/password.js'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'
import { startSshServer, type SshServer } from '../support/sshServer.js'
import { startTcpCutProxy, type TcpCutProxy } from '../storages/support/tcpCutProxy.js'
import { ended, taskClient, writeRandomTree, type TaskBody, type TaskClient } from '../tasks/support.js'
import { runCli } from '../support/runCli.js'
import { cell, type AwaitingFix } from './support/awaitingFix.js'
import { spawnCli, type CliProcess } from './support/cliProcess.js'
import { diffTrees, readTree, type DiskTree } from './support/treeOnDisk.js'

const operator = { username: 'operator', password: 'faults operator password' }

/** Cells that fail today for a known bug: each must still fail so (none today). */
export const awaitingFix: AwaitingFix[] = []

describe('restore matrix: faults mid-restore leave the target as the message says (real daemon, sshd, tmpfs, SIGKILL)', function () {
  this.timeout(180_000)
  let dir: string
  let root: string
  let configFile: string
  let ssh: SshServer
  let proxy: TcpCutProxy
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  let source: DiskTree
  const snapshots: Record<string, string> = {}

  before(async function () {
    this.timeout(300_000)
    dir = mkdtempSync(join(tmpdir(), 'bd-faults-'))
    root = join(dir, 'restores')
    mkdirSync(root)
    // sshd starts while the tree is written: 1,600 files of 16 KiB (25 MiB), so that a restore takes long
    // enough to be cut or killed while it writes.
    const sshUp = startSshServer()
    sshUp.catch(() => {})
    writeRandomTree(join(dir, 'big'), 20, 80)
    source = readTree(join(dir, 'big'))
    ssh = await sshUp
    proxy = await startTcpCutProxy(ssh.host, ssh.port)
    const knownHosts = join(dir, 'known_hosts')
    writeFileSync(knownHosts, readFileSync(ssh.knownHosts, 'utf8').replace(`]:${ssh.port} `, `]:${proxy.port} `))
    const files = [{ type: 'local', name: 'files', path: join(dir, 'big') }]
    const config = {
      dataDir: join(dir, 'data'),
      server: {
        address: '127.0.0.1:0',
        auth: { enabled: true, username: operator.username, password: await hashPassword(operator.password) },
        permissions: { allowRestore: true },
        ui: { enabled: false },
      },
      restore: { roots: [root] },
      jobs: [
        {
          name: 'f-sftp',
          sources: files,
          storages: [
            {
              type: 'sftp',
              name: 'sftp',
              host: '127.0.0.1',
              port: proxy.port,
              username: ssh.username,
              privateKey: ssh.clientKey,
              knownHosts,
              path: join(ssh.root, 'backups'),
            },
          ],
        },
        { name: 'f-local', sources: files, storages: [{ type: 'local', name: 'disk', path: join(dir, 'storage') }] },
      ],
    }
    configFile = join(dir, 'backup-daemon.yaml')
    writeFileSync(configFile, JSON.stringify(config, null, 2))
    daemon = await spawnDaemon(configFile)
    api = await taskClient(daemon, operator.username, operator.password)
    await Promise.all(['f-sftp', 'f-local'].map(async (job) => (snapshots[job] = await api.backup(job))))
  })

  after(async function () {
    this.timeout(60_000)
    if (daemon) await daemon.stop()
    await proxy?.close()
    await ssh?.stop()
    if (dir) {
      const mount = join(root, 'small')
      if (existsSync(mount)) execFileSync('umount', [mount], { stdio: 'ignore' })
      rmSync(dir, { recursive: true, force: true })
    }
  })

  /**
   * The daemon must survive every fault: a crash fails the cell with what it printed. Called when a request
   * failed: a daemon that is dying has closed its sockets a moment before it exits, so it is given 5 s.
   */
  const alive = async () => {
    const { child } = daemon!
    if (child.exitCode === null && child.signalCode === null) await Promise.race([once(child, 'exit'), sleep(5000)])
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the daemon died (exit ${child.exitCode}, ${child.signalCode}):\n${daemon!.output().slice(-2500)}`)
  }
  /** A daemon killed (or crashed) by the cell before is started again, as systemd would. */
  const ensureDaemon = async () => {
    if (daemon!.child.exitCode === null && daemon!.child.signalCode === null) return
    daemon = await spawnDaemon(configFile)
    api = await taskClient(daemon, operator.username, operator.password)
  }

  const restore = async (job: string, path: string) => {
    await ensureDaemon()
    const res = await api.post(`/jobs/${job}/backups/${encodeURIComponent(snapshots[job]!)}/restore`, { target: { kind: 'files', path } })
    expect(res.status, await res.clone().text()).to.equal(202)
  }
  /** Waits until the task reads the snapshot for the restore itself. */
  const untilRestoring = (job: string) => api.waitTask(job, (task: TaskBody) => ended(task) || task.progress?.phase === 'restoring')
  /** `backup-daemon restore JOB SNAPSHOT --to target`, running. */
  const cliRestore = (job: string, target: string) => spawnCli(['restore', job, snapshots[job]!, '--to', target, '--config', configFile])
  /** The CLI has begun the restore pass (a folder restore reads the snapshot once, checking it as it comes). */
  const cliRestoring = /restoring from storage "[^"]+"/
  /**
   * The CLI's failure, as its error line says it (`ERROR [restore] failed: …`). A crash (an uncaught error,
   * Node's stack and version at the end) or another exit fails the cell with what it printed.
   */
  const cliFailure = async (run: CliProcess) => {
    const { code, signal } = await run.exited
    const out = run.output()
    const failed = /ERROR \[restore\] failed: (.*)/.exec(out)
    if (code !== 1 || !failed || /^Node\.js v\d+/m.test(out)) throw new Error(`the command died (exit ${code}, ${signal}):\n${out.slice(-2500)}`)
    return failed[1]!
  }
  const leftovers = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((name) => name.includes('.restore-')) : [])
  /** What a failed restore left must be what its message says. */
  const asTheMessageSays = (error: string, target: string, parent: string) => {
    expect(leftovers(parent), 'temporary folders left').to.deep.equal([])
    if (/as it was/.test(error)) expect(existsSync(target), `${target} exists, but the message says: ${error}`).to.equal(false)
    else expect(diffTrees(source, readTree(target), { ignoreTop: true }), `the message says: ${error}`).to.deep.equal([])
  }
  const failedTask = (task: TaskBody) => {
    expect(task.status, task.summary).to.equal('failed')
    return task.error ?? ''
  }

  describe('the storage dies mid-restore (an SFTP connection cut by a TCP proxy)', function () {
    /** The failure names the storage and says its connection was lost (not ssh2's bare "No response from server"). */
    const storageNamed = /storage "sftp" \(sftp\) failed: the SSH connection to 127\.0\.0\.1:\d+ was lost; nothing was restored/
    cell(awaitingFix, 'faults/sftp-dies-mid-restore/api', async () => {
      const target = join(root, 'cut')
      await restore('f-sftp', target)
      const restoring = await untilRestoring('f-sftp')
      expect(restoring.status, 'the restore ended before it could be cut').to.equal('running')
      // A few SFTP read requests more, then every connection dies, as with a network failure.
      const cuts = proxy.cuts
      proxy.cutAfter(2000)
      const task = await api.waitTask('f-sftp', ended).catch(async (err: Error) => {
        await alive()
        throw err
      })
      expect(proxy.cuts, 'the connection was cut').to.equal(cuts + 1)
      const error = failedTask(task)
      asTheMessageSays(error, target, root)
      expect(error, error).to.match(storageNamed)
    })
    cell(awaitingFix, 'faults/sftp-dies-mid-restore/cli', async () => {
      const target = join(dir, 'cli', 'cut')
      const run = cliRestore('f-sftp', target)
      await run.until(cliRestoring)
      const cuts = proxy.cuts
      proxy.cutAfter(2000)
      const error = await cliFailure(run)
      expect(proxy.cuts, 'the connection was cut').to.equal(cuts + 1)
      asTheMessageSays(error, target, join(dir, 'cli'))
      expect(error, error).to.match(storageNamed)
    })
  })

  describe("the target's disk is full (a 2 MiB tmpfs)", function () {
    // The temporary folder sits in the target's parent, so the unpacking itself runs out of space (25 MiB to write).
    let small: string
    before(function () {
      small = join(root, 'small')
      mkdirSync(small)
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', small])
    })
    /** Nothing of the failed restore stays on the full file system. */
    const spaceGivenBack = () => {
      const { blocks, bfree } = statfsSync(small)
      expect(blocks - bfree, 'blocks still used on the full file system').to.be.below(8)
    }
    cell(awaitingFix, 'faults/target-disk-full/api', async () => {
      const target = join(small, 'full-api')
      await restore('f-local', target)
      const error = failedTask(await api.waitTask('f-local', ended))
      asTheMessageSays(error, target, small)
      spaceGivenBack()
      expect(error, error).to.match(/^ENOSPC: no space left on device/)
    })
    cell(awaitingFix, 'faults/target-disk-full/cli', async () => {
      const target = join(small, 'full-cli')
      const error = await cliFailure(cliRestore('f-local', target))
      asTheMessageSays(error, target, small)
      spaceGivenBack()
      expect(error, error).to.match(/^ENOSPC: no space left on device/)
    })
  })

  describe('the process restoring is killed (SIGKILL) mid-restore', function () {
    cell(awaitingFix, 'faults/daemon-killed-mid-restore/api', async () => {
      const target = join(root, 'killed')
      await restore('f-local', target)
      const restoring = await untilRestoring('f-local')
      expect(restoring.status, 'the restore ended before it could be killed').to.equal('running')
      daemon!.child.kill('SIGKILL')
      await once(daemon!.child, 'exit')
      daemon = await spawnDaemon(configFile)
      api = await taskClient(daemon, operator.username, operator.password)
      // The next start finishes what the journal says and records the task as failed, with what was done.
      const record = await killedRestore(target, async () => (await (await api.get('/jobs/f-local/history?limit=5')).json()) as History)
      expect(record.result).to.equal('failed')
      asTheMessageSays(record.error ?? '', target, root)
    })
    cell(awaitingFix, 'faults/cli-killed-mid-restore/cli', async () => {
      const target = join(dir, 'cli', 'killed')
      const run = cliRestore('f-local', target)
      await run.until(cliRestoring)
      // Killed once it unpacks into its temporary folder (its journal is written as that folder is made).
      for (let i = 0; i < 400 && leftovers(join(dir, 'cli')).length === 0; i++) await sleep(25)
      expect(leftovers(join(dir, 'cli')), 'no temporary folder while the restore ran').to.have.length(1)
      run.child.kill('SIGKILL')
      await run.exited
      // The next command that starts a task puts the killed restore right (its journal) and records it.
      const verify = await runCli(['verify', 'f-local', '--config', configFile])
      expect(verify.code, verify.out).to.equal(0)
      await ensureDaemon()
      const record = await killedRestore(target, async () => (await (await api.get('/jobs/f-local/history?limit=5')).json()) as History)
      expect(record.result).to.equal('failed')
      asTheMessageSays(record.error ?? '', target, join(dir, 'cli'))
    })
  })

  interface History {
    runs: { kind: string; result: string; target?: string; error?: string }[]
  }
  /** The record of the killed restore into `target` in the run history, waited for. */
  async function killedRestore(target: string, history: () => Promise<History>) {
    for (let i = 0; i < 200; i++) {
      const record = (await history()).runs.find((run) => run.kind === 'restore' && run.target === target && /interrupted/.test(run.error ?? ''))
      if (record) return record
      await sleep(50)
    }
    throw new Error(
      `the killed restore into ${target} is not in the run history: ${JSON.stringify((await history()).runs.filter((run) => run.kind === 'restore'))}`,
    )
  }
})
