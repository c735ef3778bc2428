/**
 * @module test/sources/support/drillCheck
 * A kind's drill check (`SourceDrill.check`) run on bytes as the restored dump, the way a drill hands it a
 * file: each run in a fresh folder `check-<n>` under the test's folder, holding the dump file and the
 * check's own scratch folder `checks/`, with the lines it logs kept for the assertions.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SourceRecord } from '../../../src/tar/snapshotRecord.js'
import type { DrillCheck, SourceConfigBase, SourceDrill } from '../../../src/sources/types.js'

export interface ScratchDrillCheck<C extends SourceConfigBase> {
  config: C
  /** The dump's name in the archive (`<source>/<file>`) and its file name in the check's folder. */
  entry: string
  file: string
  bytes: Buffer
  recorded: SourceRecord | undefined
  databaseServer?: 'configured' | 'temporary'
}

let checks = 0

/** Runs `drill.check` on `options.bytes` in a new folder under `root`; its result, the lines it logged and its folder. */
export async function checkInScratch<C extends SourceConfigBase>(
  drill: SourceDrill<C>,
  root: string,
  options: ScratchDrillCheck<C>,
): Promise<DrillCheck & { lines: string[]; dir: string }> {
  const dir = join(root, `check-${checks++}`)
  await mkdir(join(dir, 'checks'), { recursive: true })
  await writeFile(join(dir, options.file), options.bytes)
  const lines: string[] = []
  const result = await drill.check({
    config: options.config,
    files: [{ name: options.entry, path: join(dir, options.file) }],
    recorded: options.recorded,
    scratch: join(dir, 'checks'),
    databaseServer: options.databaseServer ?? 'configured',
    log: (_level, message) => lines.push(message),
    signal: new AbortController().signal,
  })
  return { ...result, lines, dir }
}
