/**
 * @module test/support/daemonYaml
 * Writes a config file for the real command: `dataDir: ./data` (relative to the folder the command runs
 * in) and the `jobs:` YAML the test gives, so each test shows only its own jobs.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Writes `<dir>/<name>` (`backup-daemon.yaml` unless given) with `jobs` under `jobs:`; resolves with its path. */
export async function writeDaemonYaml(dir: string, jobs: string, name = 'backup-daemon.yaml'): Promise<string> {
  const file = join(dir, name)
  await writeFile(file, `dataDir: ./data\njobs:\n${jobs}`)
  return file
}
