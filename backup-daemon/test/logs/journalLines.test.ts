/**
 * The journal carries the runs (issue 38): `serve` as a child process with its output in pipes, as under
 * systemd. Every run's and task's start and end is a line on stdout, a failure with its cause on stderr;
 * neither output nor the log files hold an ANSI code. With `JOURNAL_STREAM` set (systemd's sign that the
 * output is the journal), each line is the message with its sd-daemon level prefix and no time stamp.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tempDir, waitFor } from '../engine/helpers.js'
import { daemonBin } from '../support/runCli.js'

async function serve(dir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [daemonBin, 'serve', '--config', 'backup-daemon.yaml'], {
    cwd: dir,
    env: { ...process.env, FORCE_COLOR: '', NO_COLOR: '', JOURNAL_STREAM: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(stdout)?.[1], 30_000, `the daemon to listen:\n${stderr}`)
  const post = (path: string) => fetch(`${url}/api/v1${path}`, { method: 'POST' })
  /** Runs `job` from the API and waits for its end line. */
  const run = async (job: string, end: RegExp) => {
    expect((await post(`/jobs/${job}/run`)).status).to.equal(202)
    await waitFor(() => end.test(stdout + stderr), 30_000, `the end of ${job}'s run`)
  }
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  return { url, post, run, stop, stdout: () => stdout, stderr: () => stderr }
}

describe('logs: the journal carries the runs (serve with its output in pipes)', function () {
  this.timeout(60_000)
  let dir: string
  let remove: () => Promise<void>

  before(async () => {
    ;({ dir, remove } = await tempDir('bd-journal-'))
    await mkdir(join(dir, 'site'))
    await writeFile(join(dir, 'site', 'index.html'), 'hello\n')
    await writeFile(
      join(dir, 'backup-daemon.yaml'),
      `dataDir: ./data
server: { address: "127.0.0.1:0", permissions: { allowManualRun: true, allowRestore: true } }
logs: { directory: ./data/logs }
jobs:
  - name: ok
    sources: [{ type: local, name: files, path: ./site }]
    storages: [{ type: local, name: disk, path: ./store }]
  - name: bad
    beforeScript: "echo the database is locked >&2; exit 3"
    sources: [{ type: local, name: files, path: ./site }]
    storages: [{ type: local, name: disk, path: ./store }]
`,
    )
  })
  after(() => remove?.())

  it('prints each run and task start and end, failures with their cause on stderr, no ANSI code anywhere', async () => {
    const daemon = await serve(dir)
    try {
      await daemon.run('ok', /\[ok\] run succeeded in /)
      await daemon.run('bad', /\[bad\] run failed after /)
      const { backups } = (await (await fetch(`${daemon.url}/api/v1/jobs/ok/backups`)).json()) as { backups: { name: string }[] }
      expect((await daemon.post(`/jobs/ok/backups/${backups[0]!.name}/verify`)).status).to.equal(202)
      await waitFor(() => /\[ok\] verify succeeded in /.test(daemon.stdout()), 30_000, 'the verify')
    } finally {
      await daemon.stop()
    }
    const stdout = daemon.stdout()
    const stderr = daemon.stderr()
    const time = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`
    expect(stdout).to.match(new RegExp(`^${time} INFO  \\[ok\\] run started \\(manual\\)$`, 'm'))
    expect(stdout).to.match(new RegExp(`^${time} INFO  \\[ok\\] run succeeded in \\S+$`, 'm'))
    expect(stdout).to.match(new RegExp(`^${time} INFO  \\[ok\\] verify started \\(manual\\): verify of ok-\\S+$`, 'm'))
    expect(stdout).to.match(new RegExp(`^${time} INFO  \\[ok\\] verify succeeded in \\S+: `, 'm'))
    expect(stdout).to.match(new RegExp(`^${time} INFO  \\[bad\\] run started \\(manual\\)$`, 'm'))
    // Once, with its cause, and what the script said before it.
    expect(stderr).to.match(new RegExp(`^${time} WARN  \\[bad\\] beforeScript: the database is locked$`, 'm'))
    expect(stderr.match(new RegExp(`^${time} ERROR \\[bad\\] run failed after \\S+: beforeScript failed: exit code 3$`, 'gm'))).to.have.length(1)
    expect(stdout + stderr).not.to.include('\x1b')
    for (const file of ['system.log', 'jobs/ok.log', 'jobs/bad.log']) {
      const text = await readFile(join(dir, 'data', 'logs', file), 'utf8')
      expect(text, file).to.match(/INFO {2}run started|\[ok\] run started/)
      expect(text, file).not.to.include('\x1b')
    }
  })

  it('under systemd (JOURNAL_STREAM set): the message with its level prefix, the journal stamps the time', async () => {
    const daemon = await serve(dir, { JOURNAL_STREAM: '8:12345' })
    try {
      await daemon.run('ok', /\[ok\] run succeeded in /)
      await daemon.run('bad', /\[bad\] run failed after /)
    } finally {
      await daemon.stop()
    }
    expect(daemon.stdout()).to.match(/^<6>\[ok\] run started \(manual\)$/m)
    expect(daemon.stdout()).to.match(/^<6>\[ok\] run succeeded in \S+$/m)
    expect(daemon.stdout()).to.match(/^<6>engine started: 2 job\(s\), 0 scheduled$/m)
    expect(daemon.stderr()).to.match(/^<3>\[bad\] run failed after \S+: /m)
    expect(daemon.stdout() + daemon.stderr()).not.to.include('\x1b')
  })
})
