/**
 * @module test/compat/support/compatFixture
 * A job config as loaded (then given the keys the compat-config branch adds to the YAML: openssl
 * encryption, `includeJobName`, `defaultStorage`, `tar.xz`/`zip`), the trees archived by both services,
 * and the in-process `verify`/`restore` with their output captured.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, readlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { restoreIn, type RestoreArgs } from '../../../src/cli/restoreCommand.js'
import { inProcessReporter } from '../../../src/cli/terminal/inProcessReporter.js'
import { verifyIn } from '../../../src/cli/verifyCommand.js'
import { loadConfig } from '../../../src/config/loadConfig.js'
import type { DaemonConfig, JobConfig } from '../../../src/config/types.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'

export const exec = promisify(execFile)

/** Writes and loads a config with job `legacy` (a local source `files`, a sqlite source `db`, storages `disk` and `spare`). */
export async function legacyConfig(dir: string, change: (job: JobConfig) => void = () => {}): Promise<DaemonConfig> {
  const file = await writeDaemonYaml(
    dir,
    `  - name: legacy
    compression: tar.gz
    sources:
      - { type: local, name: files, path: ./live }
      - { type: sqlite, name: db, path: ./app.db }
    storages:
      - { type: local, name: disk, path: ./store }
      - { type: local, name: spare, path: ./spare }
`,
  )
  const config = await loadConfig(file)
  change(config.jobs[0]!)
  loaded = config
  return config
}

/** The config `legacyConfig` loaded last: the daemon the in-process commands run in (its data folder). */
let loaded: DaemonConfig | undefined
const configFor = (job: JobConfig): DaemonConfig => {
  if (!loaded) throw new Error('compatFixture: call legacyConfig first')
  return { ...loaded, jobs: [job] }
}

/** What both services archive: files (and for ours the same under the source name). */
export async function makeFiles(root: string): Promise<void> {
  await mkdir(join(root, 'docs/deep'), { recursive: true })
  await writeFile(join(root, 'readme.txt'), 'hello from the old service\n'.repeat(500))
  await writeFile(join(root, 'docs/random.bin'), randomBytes(200_000))
  await writeFile(join(root, 'docs/deep/empty'), '')
}

export async function makeSqlite(path: string, value: string): Promise<void> {
  await exec('sqlite3', [path, `create table t(v text); insert into t values ('${value}');`])
}

export async function sqliteValue(path: string): Promise<string> {
  return (await exec('sqlite3', [path, 'select v from t'])).stdout.trim()
}

/** The files of `makeFiles` under `root`, for comparing a restore with what was archived. */
export async function snapshotOfFiles(root: string): Promise<Record<string, string>> {
  return {
    readme: (await readFile(join(root, 'readme.txt'))).toString('base64'),
    random: (await readFile(join(root, 'docs/random.bin'))).toString('base64'),
    empty: (await readFile(join(root, 'docs/deep/empty'))).toString('base64'),
  }
}

export const linkOf = (path: string) => readlink(path)

export interface Captured {
  code: number
  stdout: string
  stderr: string
}

/** Runs `fn` with process.stdout/stderr captured (the commands print their report there). */
export async function capture(fn: () => Promise<number>): Promise<Captured> {
  const out = process.stdout.write.bind(process.stdout)
  const err = process.stderr.write.bind(process.stderr)
  let stdout = ''
  let stderr = ''
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write
  try {
    const code = await fn()
    return { code, stdout, stderr }
  } finally {
    process.stdout.write = out
    process.stderr.write = err
  }
}

/** `backup-daemon verify` in process; `storage` is its `--storage`. */
export const verify = (job: JobConfig, snapshot?: string, storage?: string) =>
  capture(() => verifyIn(configFor(job), job.name, snapshot, storage, inProcessReporter()))

export const restore = (job: JobConfig, args: Partial<Omit<RestoreArgs, 'file' | 'job'>> & { snapshot: string }) =>
  capture(() =>
    restoreIn({ config: configFor(job), job, entries: job.storages }, { intoDatabase: false, sources: [], force: false, ...args }, inProcessReporter()),
  )
