/**
 * `snapshots` and every `--json` form (issue 30) against real snapshots on a local storage and an S3
 * storage (s3rver, a real S3-compatible server): the table, the API's `Snapshot` objects (compared with
 * what `GET /jobs/{name}/backups` answers: `engine.listSnapshots`), and the JSON lines of `run`,
 * `verify` and `restore` ending with the history record.
 */
import { expect } from 'chai'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/loadConfig.js'
import { createEngine } from '../../src/engine/createEngine.js'
import type { RunRecord } from '../../src/runs/history.js'
import type { SnapshotView } from '../../src/engine/types.js'
import { makeTree, tempDir } from '../engine/helpers.js'
import { startS3rver, type RunningS3 } from '../storages/support/s3rver.js'
import { runSplit } from './support/runSplit.js'

type JsonLine = Record<string, unknown> & { type?: string }

/** Every line of `out` parsed; fails on a line that is not one JSON object. */
function jsonLines(out: string): JsonLine[] {
  const lines = out.trimEnd().split('\n')
  expect(lines.length).to.be.above(0)
  return lines.map((line) => {
    const value: unknown = JSON.parse(line)
    expect(value, line).to.be.an('object')
    return value as JsonLine
  })
}

/** The `{"type":"summary"}` last line, without its `type`. */
function summaryOf(lines: JsonLine[]): RunRecord {
  const last = lines.at(-1)!
  expect(last.type).to.equal('summary')
  const { type: _type, ...record } = last
  return record as unknown as RunRecord
}

describe('backup-daemon snapshots and --json (local and S3 storages)', function () {
  this.timeout(120_000)
  let s3: RunningS3
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  const api = async <T>(fn: (engine: Awaited<ReturnType<typeof createEngine>>) => Promise<T> | T): Promise<T> => {
    const engine = await createEngine(await loadConfig(file), { schedule: false })
    try {
      return await fn(engine)
    } finally {
      await engine.stop()
    }
  }

  before(async () => {
    s3 = await startS3rver()
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
    file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
server: { enabled: false }
jobs:
  - name: site
    compression: { type: tar.zst, level: 3 }
    split: { chunkSize: 131072 }
    sources: [{ type: local, name: tree, path: ./src, exclude: ["*.tmp", "cache/**"] }]
    storages:
      - { type: local, name: disk, path: ./store }
      - { type: s3, name: cloud, bucket: ${s3.bucket}, endpoint: "${s3.endpoint}", usePathStyle: true, accessKeyId: S3RVER, secretAccessKey: S3RVER }
`,
    )
  })
  after(async () => {
    await tmp?.remove()
    await s3?.close()
  })

  it('run --json: log lines, then a summary that is the run history record', async () => {
    for (let i = 0; i < 2; i++) {
      const result = await runSplit(['run', 'site', '--config', file, '--json'], { cwd: tmp.dir })
      expect(result.code, result.stdout + result.stderr).to.equal(0)
      const lines = jsonLines(result.stdout)
      for (const line of lines) expect(line.type).to.be.oneOf(['log', 'progress', 'summary'])
      const logs = lines.filter((l) => l.type === 'log')
      expect(logs.map((l) => l.message)).to.include('run started (cli)')
      for (const log of logs) expect(log).to.have.keys('type', 'time', 'level', 'message')
      expect(logs.some((l) => /^committed site-\S+\.tar\.zst/.test(String(l.message)))).to.equal(true)
      const summary = summaryOf(lines)
      expect(summary).to.include({ job: 'site', kind: 'backup', trigger: 'cli', result: 'success' })
      expect(await api((engine) => engine.history.list('site')[0])).to.deep.equal(summary)
    }
  })

  it('snapshots: an aligned table over both storages, or one storage with --storage', async () => {
    const listed = await api((engine) => engine.listSnapshots('site'))
    expect(listed).to.have.length(2)
    const all = await runSplit(['snapshots', 'site', '--config', file], { cwd: tmp.dir })
    expect(all.code, all.stdout).to.equal(0)
    const [header, ...rows] = all.stdout.trimEnd().split('\n')
    expect(header).to.match(/^NAME +CREATED +SIZE +PARTS +STORAGE +STATE$/)
    expect(rows.at(-1)).to.match(/^2 snapshot\(s\), [\d.]+ KiB$/)
    for (const [i, snapshot] of listed.entries()) {
      const cells = rows[i]!.split(/ {2,}/)
      expect(cells[0]).to.equal(snapshot.name)
      expect(cells[1]).to.equal(snapshot.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'))
      expect(cells[3]).to.equal(String(snapshot.partsCount))
      expect(cells[4]).to.equal('disk,cloud')
      expect(cells[5]).to.equal('checksummed')
      // Aligned: every column starts at the header's column.
      expect(rows[i]!.indexOf(cells[4]!)).to.equal(header!.indexOf('STORAGE'))
    }
    expect(listed[0]!.partsCount).to.be.above(1)
    const cloud = await runSplit(['snapshots', 'site', '--config', file, '--storage', 'cloud'], { cwd: tmp.dir })
    expect(cloud.code, cloud.stdout).to.equal(0)
    expect(
      cloud.stdout
        .split('\n')
        .slice(1, 3)
        .map((row) => row.split(/ {2,}/)[4]),
    ).to.deep.equal(['cloud', 'cloud'])
  })

  it('snapshots --json: one Snapshot per line, exactly what the API lists', async () => {
    const listed = await api((engine) => engine.listSnapshots('site'))
    const all = await runSplit(['snapshots', 'site', '--config', file, '--json'], { cwd: tmp.dir })
    expect(all.code, all.stdout).to.equal(0)
    expect(jsonLines(all.stdout)).to.deep.equal(JSON.parse(JSON.stringify(listed)))
    const cloud = await runSplit(['snapshots', 'site', '--config', file, '--json', '--storage', 'cloud'], { cwd: tmp.dir })
    const onS3 = jsonLines(cloud.stdout) as unknown as SnapshotView[]
    expect(onS3.map((s) => s.name)).to.deep.equal(listed.map((s) => s.name))
    for (const snapshot of onS3) expect(snapshot).to.include({ storage: 'cloud', storageType: 's3', checksummed: true, damaged: false, isSplit: true })
  })

  it('verify --json on both storages: progress events, log lines, and the verify record', async () => {
    const [newest] = await api((engine) => engine.listSnapshots('site'))
    const result = await runSplit(['verify', 'site', '--config', file, '--json', '--limit-download', '256'], { cwd: tmp.dir })
    expect(result.code, result.stdout + result.stderr).to.equal(0)
    const lines = jsonLines(result.stdout)
    const progress = lines.filter((l) => l.type === 'progress')
    expect(progress.length, result.stdout + result.stderr).to.be.at.least(2)
    for (const event of progress) expect(event).to.include.keys('kind', 'phase', 'bytesRead', 'totalBytes', 'bytesPerSecond', 'startedAt', 'storages')
    expect(progress.map((p) => p.currentSource)).to.include.members(['disk', 'cloud'])
    const messages = lines.filter((l) => l.type === 'log').map((l) => String(l.message))
    expect(messages.some((m) => m.startsWith(`[verify] storage "disk": ${newest!.name}: OK`))).to.equal(true)
    expect(messages.some((m) => m.startsWith(`[verify] storage "cloud": ${newest!.name}: OK`))).to.equal(true)
    const summary = summaryOf(lines)
    expect(summary).to.include({ job: 'site', kind: 'verify', trigger: 'cli', result: 'success', snapshot: newest!.name, bytesRead: 2 * newest!.size })
    expect(summary).to.include.keys('id', 'startedAt', 'endedAt', 'durationMs', 'bytesWritten')
    // --limit-download 256 (KiB/s) paces both storages together: after a burst of 64 KiB, 256 KiB a second.
    expect(summary.durationMs).to.be.at.least(((summary.bytesRead - 65536) / (256 * 1024)) * 1000 * 0.95)
  })

  it('restore --json from the S3 copy: the files are back and the summary is the restore record', async () => {
    const [, older] = await api((engine) => engine.listSnapshots('site'))
    const args = ['restore', 'site', older!.name, '--config', file, '--storage', 'cloud', '--to', 'restored', '--json']
    const result = await runSplit(args, { cwd: tmp.dir })
    expect(result.code, result.stdout + result.stderr).to.equal(0)
    const summary = summaryOf(jsonLines(result.stdout))
    expect(summary).to.include({ kind: 'restore', result: 'success', snapshot: older!.name, target: join(tmp.dir, 'restored') })
    expect(summary.bytesWritten).to.equal(13_000 + 300_000)
    expect(await readFile(join(tmp.dir, 'restored/tree/docs/random.bin'))).to.deep.equal(await readFile(join(tmp.dir, 'src/docs/random.bin')))
  })

  it('failures keep the exit codes: an unknown snapshot is refused as the API refuses it (1), a usage error is 2, a storage that cannot be listed is named (1)', async () => {
    const missing = await runSplit(['verify', 'site', 'site-1999-01-01T00-00-00-000Z.tar.zst', '--config', file, '--json'], { cwd: tmp.dir })
    expect(missing.code, missing.stdout).to.equal(1)
    const lines = jsonLines(missing.stdout)
    expect(lines.filter((l) => l.level === 'error').map((l) => l.message)).to.deep.equal([
      'verify: snapshot "site-1999-01-01T00-00-00-000Z.tar.zst" not found for job "site"',
    ])
    // Refused before a task started (the API's 404): no record.
    expect(lines.filter((l) => l.type === 'summary')).to.deep.equal([])
    const usage = await runSplit(['restore', 'site', 'x', '--config', file, '--json'], { cwd: tmp.dir })
    expect(usage.code).to.equal(2)
    const gone = join(tmp.dir, 'gone.yaml')
    await writeFile(gone, (await readFile(file, 'utf8')).replace(`bucket: ${s3.bucket}`, 'bucket: gone'))
    const unlisted = await runSplit(['snapshots', 'site', '--config', gone], { cwd: tmp.dir })
    expect(unlisted.code).to.equal(1)
    expect(unlisted.stderr).to.match(/^snapshots: cannot list job "site" on storage "cloud": .+; check it, or list the others with --storage NAME$/m)
  })
})
