/**
 * What an operator sees of `run`, `verify` and `restore` (issue 30): on a terminal (the real CLI in a
 * pseudo-terminal, `support/terminalSession`) one live line redrawn in place with several progress
 * updates and the log lines above it; through a pipe plain lines only, with a progress line every
 * `--progress-interval` seconds; `--quiet`, `NO_COLOR` and `--no-color`.
 * The run is held by a stand-in dump tool reading a FIFO (the test decides when bytes arrive, no
 * timing); verify and restore are paced by `--limit-download`.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tempDir, waitFor } from '../engine/helpers.js'
import { fakeDumpTool, openFifo } from '../progress/support/slowDumpDaemon.js'
import { daemonBin, runCli } from '../support/runCli.js'
import { colourCode, distinctUpdates, inTerminal, printedLines, progressFrames, requireScript } from './support/terminalSession.js'

const config = `dataDir: ./data
server: { enabled: false }
jobs:
  - name: files
    compression: tar.gz
    sources: [{ type: local, name: photos, path: ./photos }]
    storages: [{ type: local, name: disk, path: ./store }]
  - name: slow
    compression: tar.gz
    sources: [{ type: mysql, name: db, database: app }]
    storages: [{ type: local, name: disk, path: ./store }]
`

/** Reads of 2 MiB at 1 MiB/s: a verify takes about 2 s (8 progress ticks), a restore about 4 s. */
const paced = ['--limit-download', '1M']
/** Any escape sequence or carriage return: none may reach a journal. */
const anyEscape = new RegExp(`${String.fromCharCode(27)}|\\r`)

describe('backup-daemon run / verify / restore: progress on a terminal and in a journal', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  let binDir: string
  let fifo: string
  let snapshot: string
  before(async () => {
    requireScript()
    tmp = await tempDir()
    ;({ binDir, fifo } = fakeDumpTool(tmp.dir))
    await mkdir(join(tmp.dir, 'photos/2026'), { recursive: true })
    for (let i = 1; i <= 4; i++) await writeFile(join(tmp.dir, `photos/2026/img-${i}.raw`), randomBytes(512 * 1024))
    file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(file, config)
    const first = await runCli(['run', 'files', '--config', file], { cwd: tmp.dir })
    expect(first.code, first.out).to.equal(0)
    snapshot = /committed (files-\S+\.tar\.gz)/.exec(first.out)![1]!
  })
  after(() => tmp?.remove())

  it('run on a terminal: the live line moves with every chunk the dump delivers, log lines print above it', async () => {
    const session = inTerminal(['run', 'slow', '--config', file], { cwd: tmp.dir, env: { PATH: `${binDir}:${process.env.PATH}` } })
    const dump = await openFifo(fifo)
    let sent = 0
    const seen: number[] = []
    for (let step = 0; step < 4; step++) {
      const chunk = randomBytes(256 * 1024)
      dump.write(chunk)
      sent += chunk.length
      // The next redraw that shows what was sent (the engine samples 4 times a second).
      const frame = await waitFor(
        () => progressFrames(session.output()).find((f) => f.phase === 'dumping' && f.bytes >= sent - 1024),
        20_000,
        `a frame at ${sent}`,
      )
      seen.push(frame.bytes)
      expect(frame.text).to.match(/^dumping +[\d.]+ (KiB|MiB) +[\d.]+ (KiB|MiB)\/s +db: app\.sql$/)
    }
    dump.end()
    expect(await session.done, session.output()).to.equal(0)
    expect(new Set(seen).size, `updates ${seen.join(', ')}`).to.equal(4)
    const lines = printedLines(session.output())
    expect(lines.some((l) => /INFO +run started \(cli\)$/.test(l))).to.equal(true)
    expect(lines.some((l) => /INFO +committed slow-\S+\.tar\.gz/.test(l))).to.equal(true)
    expect(lines.at(-1)).to.match(/INFO +backup success in [\d.]+m?s: 1 MiB read/)
    // The run's lines are whole lines, never cut by the live line.
    for (const line of lines) expect(line, JSON.stringify(session.output())).to.match(/^\S+Z (INFO|WARN|ERROR) /)
  })

  it('run --json (a pipe): a progress event as each chunk of the dump arrives, then the summary', async () => {
    const child = spawn(process.execPath, [daemonBin, 'run', 'slow', '--config', file, '--json'], {
      cwd: tmp.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` },
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const events = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; bytesRead?: number; phase?: string })
    const dump = await openFifo(fifo)
    let sent = 0
    for (let step = 0; step < 3; step++) {
      dump.write(randomBytes(128 * 1024))
      sent += 128 * 1024
      await waitFor(() => events().some((e) => e.type === 'progress' && e.phase === 'dumping' && e.bytesRead! >= sent), 20_000, `a progress event at ${sent}`)
    }
    dump.end()
    expect(await exited, stdout).to.equal(0)
    const all = events()
    expect(new Set(all.filter((e) => e.type === 'progress').map((e) => e.bytesRead)).size).to.be.at.least(3)
    expect(all.at(-1)).to.include({ type: 'summary', kind: 'backup', result: 'success', bytesRead: sent })
  })

  it('verify on a terminal: several redraws of one line with percent, rate and ETA, then the result above it', async () => {
    const session = inTerminal(['verify', 'files', '--config', file, ...paced], { cwd: tmp.dir })
    expect(await session.done, session.output()).to.equal(0)
    const updates = distinctUpdates(progressFrames(session.output()).filter((f) => f.phase === 'verifying'))
    expect(updates.length, session.output()).to.be.at.least(3)
    for (let i = 1; i < updates.length; i++) expect(updates[i]!.bytes).to.be.above(updates[i - 1]!.bytes)
    expect(
      updates.some((f) => /\/ 2 MiB +\d+\.\d% +[\d.]+ (KiB|MiB)\/s +ETA [\d.]+s +disk$/.test(f.text)),
      updates.map((f) => f.text).join('\n'),
    ).to.equal(true)
    const lines = printedLines(session.output())
    expect(lines.some((l) => l.includes(`[verify] storage "disk": ${snapshot}: OK`))).to.equal(true)
    expect(lines.at(-1)).to.match(/verify success in [\d.]+s: 2 MiB read/)
  })

  it('restore on a terminal: one pass (each part checked as it is read), the file being written shown, and the files are back', async () => {
    const session = inTerminal(['restore', 'files', snapshot, '--config', file, '--to', 'back', ...paced], { cwd: tmp.dir })
    expect(await session.done, session.output()).to.equal(0)
    const frames = progressFrames(session.output())
    expect(
      frames.filter((f) => f.phase === 'verifying'),
      'no verify pass before a folder restore',
    ).to.deep.equal([])
    const restoring = distinctUpdates(frames.filter((f) => f.phase === 'restoring'))
    expect(restoring.length, session.output()).to.be.at.least(3)
    // The file being written; on the 80 columns of this terminal the path is cut from its start, never wrapped.
    expect(
      restoring.some((f) => /photos\/2026\/img-\d\.raw$/.test(f.text)),
      restoring.map((f) => f.text).join('\n'),
    ).to.equal(true)
    for (const frame of frames) expect(frame.text.length, frame.text).to.be.below(80)
    for (let i = 1; i <= 4; i++) {
      expect((await readFile(join(tmp.dir, `back/photos/2026/img-${i}.raw`))).equals(await readFile(join(tmp.dir, `photos/2026/img-${i}.raw`)))).to.equal(true)
    }
    expect(printedLines(session.output()).at(-1)).to.match(/restore success in [\d.]+s: 2 MiB read, 2 MiB written/, 'the snapshot read once')
  })

  it('colours on a terminal, none with NO_COLOR or --no-color (the live line is still redrawn)', async () => {
    const coloured = inTerminal(['verify', 'files', '--config', file], { cwd: tmp.dir })
    expect(await coloured.done).to.equal(0)
    expect(coloured.output()).to.include('\x1b[32mINFO')
    for (const [args, env] of [
      [['--no-color'], {}],
      [[], { NO_COLOR: '1' }],
    ] as const) {
      const plain = inTerminal(['verify', 'files', '--config', file, ...paced, ...args], { cwd: tmp.dir, env })
      expect(await plain.done, plain.output()).to.equal(0)
      expect(plain.output(), `${args.join(' ')} ${JSON.stringify(env)}`).to.not.match(colourCode)
      expect(progressFrames(plain.output()).length).to.be.above(0)
    }
  })

  it('not a terminal: plain lines only, a progress line every --progress-interval seconds, none by default', async () => {
    const timed = await runCli(['verify', 'files', '--config', file, ...paced, '--progress-interval', '0.5'], { cwd: tmp.dir })
    expect(timed.code, timed.out).to.equal(0)
    expect(timed.out).to.not.match(anyEscape)
    const lines = timed.out.trimEnd().split('\n')
    for (const line of lines) expect(line).to.match(/^\d{4}-\d\d-\d\dT\S+Z (INFO|WARN|ERROR) +\S/)
    const progress = lines.filter((l) => / INFO +progress: verifying +[\d.]+ (B|KiB|MiB) \/ 2 MiB +\d+\.\d%/.test(l))
    expect(progress.length, timed.out).to.be.within(2, 6)
    const quiet = await runCli(['verify', 'files', '--config', file, ...paced], { cwd: tmp.dir })
    expect(quiet.code).to.equal(0)
    expect(quiet.out).to.not.match(anyEscape)
    expect(quiet.out).to.not.include('progress:')
    expect(quiet.out).to.include(`[verify] storage "disk": ${snapshot}: OK`)
  })

  it('Ctrl-C while a verify reads a part stops the read at once (the record shows how little was read)', async () => {
    const args = ['verify', 'files', '--config', file, '--limit-download', '256', '--json']
    const child = spawn(process.execPath, [daemonBin, ...args], { cwd: tmp.dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    await waitFor(() => stdout.includes('"type":"progress"'), 20_000, 'the first progress event')
    child.kill('SIGINT')
    expect(await exited, stdout).to.equal(130)
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as { type: string; result: string; bytesRead: number }
    expect(summary).to.include({ type: 'summary', result: 'cancelled' })
    // At 256 KiB/s the 2 MiB part takes 8 s: a verify that only looked at the signal between parts read it all.
    expect(summary.bytesRead).to.be.below(1024 * 1024)
    expect(stdout).to.not.include('cannot be read')
  })

  it('Ctrl-C while a restore unpacks cancels it: exit 130, the record says cancelled, nothing is left behind', async () => {
    const args = ['restore', 'files', snapshot, '--config', file, '--to', 'interrupted', ...paced, '--json']
    const child = spawn(process.execPath, [daemonBin, ...args], { cwd: tmp.dir, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    await waitFor(() => stdout.includes('"phase":"restoring"'), 20_000, 'the restoring phase')
    child.kill('SIGINT')
    expect(await exited, stdout).to.equal(130)
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: string; result?: string })
    expect(events.map((e) => e.message)).to.include('SIGINT: cancelling the restore')
    expect(events.at(-1)).to.include({ type: 'summary', kind: 'restore', result: 'cancelled' })
    // Neither the folder nor the temporary one it was being unpacked into (`.interrupted.restore-*`).
    expect((await readdir(tmp.dir)).filter((name) => name.includes('interrupted'))).to.deep.equal([])
  })

  it('--quiet prints nothing when all is well, and the errors when not', async () => {
    const ok = await runCli(['verify', 'files', '--config', file, '--quiet'], { cwd: tmp.dir })
    expect(ok.code).to.equal(0)
    expect(ok.out).to.equal('')
    const missing = await runCli(['restore', 'files', 'files-1999-01-01T00-00-00-000Z.tar.gz', '--config', file, '--to', 'x', '--quiet'], { cwd: tmp.dir })
    expect(missing.code).to.equal(1)
    expect(missing.out).to.match(/^\S+Z ERROR +restore: snapshot "files-1999-01-01T00-00-00-000Z\.tar\.gz" not found for job "files"\n$/)
  })
})
