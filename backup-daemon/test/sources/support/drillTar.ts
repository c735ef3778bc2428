/**
 * @module test/sources/support/drillTar
 * Restore drills on tar snapshots held in memory: live sources archived by `createArchive` into one
 * buffer (which a test may then damage), and `drillSnapshot` run on such a buffer in a scratch folder of
 * its own, removed after, with the drill's log lines kept for the assertions.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { createArchive } from '../../../src/archive/createArchive.js'
import { drillSnapshot, type DrillOutcome, type DrillSnapshotOptions } from '../../../src/restore/drill/drillSnapshot.js'
import type { Source } from '../../../src/sources/types.js'

const never = () => new AbortController().signal

/** A plain tar snapshot of `live` as the sources are now. */
export async function tarOf(live: Source[]): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of createArchive(live, { compression: 'tar', signal: never() })) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** What a test chooses of a drill: the job's sources, and optionally the CMS check and the database server. */
export type TarDrillOptions = Pick<DrillSnapshotOptions, 'sources' | 'cms' | 'databaseServer'>

/** `drillSnapshot` on `tar` in a new scratch folder named from `prefix` (removed after); its outcome and log lines. */
export async function drillTar(tar: Buffer, options: TarDrillOptions, prefix: string): Promise<DrillOutcome & { logs: string[] }> {
  const scratch = await mkdtemp(join(tmpdir(), prefix))
  const logs: string[] = []
  try {
    const outcome = await drillSnapshot({
      openTar: async () => Readable.from([tar]),
      scratch,
      signal: never(),
      log: (level, message) => logs.push(`${level}: ${message}`),
      ...options,
    })
    return { ...outcome, logs }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}
