/**
 * @module repository/archives/archiveKind
 * The archive kind's writing: the job's sources packed into one archive stream (compressed, then
 * encrypted), written to every archive repository of the job at once and committed (`writeSnapshot`:
 * parts, then the manifest last). One stream for all storages: the sources are read once, whatever the
 * number of storages.
 */
import { createArchive } from '../../archive/createArchive.js'
import type { RepositoryKind, WriteRun, WrittenSnapshot } from '../types.js'
import type { ArchiveRepository } from './archiveRepository.js'
import { snapshotName } from './layout.js'
import { writeSnapshot } from './writeSnapshot.js'

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

export function archiveKind(repositories: readonly ArchiveRepository[]): RepositoryKind {
  return { repositories, write: (run) => writeArchives(repositories, run) }
}

async function writeArchives(
  repositories: readonly ArchiveRepository[],
  { job, createSources, createdAt, signal, log, progress, level }: WriteRun,
): Promise<WrittenSnapshot> {
  const sources = createSources()
  const name = snapshotName(job.name, createdAt, job.compression, job.encryption?.type)
  log('info', `writing ${name} to ${repositories.map((r) => `${r.type}:${r.name}`).join(', ')}`)
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
  if (job.encryption) archive = await (await import('../../archive/encryptArchive.js')).encryptArchive(archive, job.encryption)
  // The archive ends when every source is read: what remains is committing to the storages.
  archive.once('end', () => progress.phase('uploading'))
  const manifest = await writeSnapshot({
    archive,
    storages: repositories.map((r) => r.storage),
    layouts: repositories.map((r) => r.layout),
    job: job.name,
    name,
    compression: job.compression,
    ...(job.encryption && { encryption: job.encryption }),
    createdAt,
    chunkSize: job.split?.chunkSize,
    signal,
    counters: progress.writtenTo(repositories.map((r) => r.name)),
  })
  const parts = manifest.parts.length > 1 || manifest.chunkSize !== null ? `, ${manifest.parts.length} part(s)` : ''
  const changedNote = changed ? `; ${changed} file(s) changed while read (see the warnings above)` : ''
  log('info', `committed ${name}: ${mib(manifest.size)}${parts}, sha256 ${manifest.sha256}${changedNote}`)
  return { name, size: manifest.size, sha256: manifest.sha256, partsCount: manifest.parts.length }
}
