/**
 * @module engine/runJob
 * One run of one job, start to end: clean leftovers, archive the sources into every storage, apply
 * retention. Resolves with the manifest; rejects with the abort reason when cancelled, after removing
 * everything the run wrote.
 */
import { createArchive } from '../archive/createArchive.js'
import type { Manifest } from '../repository/archives/manifest.js'
import { snapshotName } from '../repository/archives/layout.js'
import { writeSnapshot } from '../repository/archives/writeSnapshot.js'
import type { JobConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import { createSource } from '../sources/all.js'
import type { Storage } from '../storages/types.js'
import { noopTracker, type RunTracker } from './progress/RunTracker.js'
import { describePolicy, hasRules } from '../repository/retentionPlan.js'
import { withHooks } from './runHooks.js'
import { applyRetention, removeLeftovers } from '../repository/archives/catalog.js'

export interface RunJobOptions {
  job: JobConfig
  storages: Storage[]
  signal: AbortSignal
  log(level: LogLevel, message: string): void
  /** gzip level when the job sets none. @default 6 */
  level?: number
  /** Told the phases and counts of the run (`engine/progress/`). @default noopTracker */
  tracker?: RunTracker
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

/** The run between the job's `beforeScript` and `afterScript` (`engine/runHooks.ts`). */
export function runJob(options: RunJobOptions): Promise<Manifest> {
  const tracker = options.tracker ?? noopTracker
  tracker.phase(options.job.beforeScript ? 'hooks' : 'preparing')
  return withHooks(options.job, options, () => writeRun(options, tracker).finally(() => tracker.phase(options.job.afterScript ? 'hooks' : 'finishing')))
}

async function writeRun({ job, storages, signal, log, level }: RunJobOptions, tracker: RunTracker): Promise<Manifest> {
  tracker.phase('preparing')
  for (const storage of storages) {
    const removed = await removeLeftovers(storage, job.name)
    if (removed) log('warn', `storage "${storage.name}": removed ${removed} object(s) left by an unfinished run`)
  }
  signal.throwIfAborted()
  const sources = tracker.trackSources(job.sources.map((config) => createSource(config, { log: (lvl, message) => log(lvl, message) })))
  const createdAt = new Date()
  const name = snapshotName(job.name, createdAt, job.compression, job.encryption?.type)
  log('info', `writing ${name} to ${storages.map((s) => `${s.type}:${s.name}`).join(', ')}`)
  let changed = 0
  let archive = createArchive(sources, {
    compression: job.compression,
    signal,
    level: job.compressionLevel ?? (job.compression === 'tar.gz' ? level : undefined),
    onSource: (source) => log('info', `reading source "${source.name}" (${source.type})`),
    onFileChanged: (file, announced, read) => {
      changed++
      log(
        'warn',
        `${file} changed while read: ${read < announced ? `shrank to ${read} bytes, padded with zeros` : `grew past ${announced} bytes, cut`} to the ${announced} bytes it had; the copy is not what is on disk now`,
      )
    },
  })
  // After compression (encrypted bytes do not compress) and before splitting (every part is ciphertext).
  if (job.encryption) archive = await (await import('../archive/encryptArchive.js')).encryptArchive(archive, job.encryption)
  // The archive ends when every source is read: what remains is committing to the storages.
  archive.once('end', () => tracker.phase('uploading'))
  const manifest = await writeSnapshot({
    archive,
    storages,
    job: job.name,
    name,
    compression: job.compression,
    ...(job.encryption && { encryption: job.encryption }),
    createdAt,
    chunkSize: job.split?.chunkSize,
    signal,
    counters: tracker.written,
  })
  tracker.storagesCommitted()
  const parts = manifest.parts.length > 1 || manifest.chunkSize !== null ? `, ${manifest.parts.length} part(s)` : ''
  const changedNote = changed ? `; ${changed} file(s) changed while read (see the warnings above)` : ''
  log('info', `committed ${name}: ${mib(manifest.size)}${parts}, sha256 ${manifest.sha256}${changedNote}`)
  if (hasRules(job.retention)) {
    tracker.phase('retention')
    const rules = describePolicy(job.retention)
    for (const storage of storages) {
      const deleted = await applyRetention(storage, job.name, job.retention)
      for (const old of deleted) log('info', `retention (${rules}): deleted ${old} from "${storage.name}"`)
    }
  }
  return manifest
}
