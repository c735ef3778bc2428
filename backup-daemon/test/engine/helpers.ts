/**
 * @module test/engine/helpers
 * Temporary folders, a small mixed tree, and configs written as real YAML files.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/loadConfig.js'
import type { DaemonConfig } from '../../src/config/types.js'

export async function tempDir(prefix = 'bd-test-'): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) }
}

/** Text, random bytes, an empty file, nested folders, a symlink pointing out of the tree, files to exclude. */
export async function makeTree(root: string): Promise<void> {
  await mkdir(join(root, 'docs/deep/er'), { recursive: true })
  await mkdir(join(root, 'cache'), { recursive: true })
  await writeFile(join(root, 'readme.txt'), 'hello backup\n'.repeat(1000))
  await writeFile(join(root, 'docs/random.bin'), randomBytes(300_000))
  await writeFile(join(root, 'docs/deep/er/empty'), '')
  await writeFile(join(root, 'docs/notes.tmp'), 'excluded')
  await writeFile(join(root, 'cache/big'), 'excluded folder')
  await symlink('/etc/hostname', join(root, 'docs/outside'))
}

export interface JobYaml {
  name: string
  extra?: string
  compression?: 'tar' | 'tar.gz'
}

/** Writes `backup-daemon.yaml` in `dir` with one local source `src` and one local storage `backups`. */
export async function writeConfig(dir: string, jobs: JobYaml[], top = ''): Promise<string> {
  const file = join(dir, 'backup-daemon.yaml')
  const jobText = jobs
    .map(
      (job) => `  - name: ${job.name}
    compression: ${job.compression ?? 'tar.gz'}
    sources:
      - { type: local, name: files, path: ./src, exclude: ["**/*.tmp", "cache"] }
    storages:
      - { type: local, name: disk, path: ./backups }
${job.extra ?? ''}`,
    )
    .join('\n')
  await writeFile(file, `dataDir: ./data\n${top}jobs:\n${jobText}\n`)
  return file
}

export async function configIn(dir: string, jobs: JobYaml[], top = ''): Promise<DaemonConfig> {
  return loadConfig(await writeConfig(dir, jobs, top))
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it returns a truthy value or `ms` pass. */
export async function waitFor<T>(check: () => T | Promise<T>, ms = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const end = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}
