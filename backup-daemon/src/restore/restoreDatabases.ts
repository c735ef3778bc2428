/**
 * @module restore/restoreDatabases
 * Restores the database sources of a job from a snapshot's tar stream: each chosen source's entry
 * (`<source name>/...`, or `./<type>_<n>/...` in the original service's archives, the n-th source of that
 * type) goes to its kind's restore (`SourceFactory.restore`, declared in the kind's folder), which puts it
 * back where the source reads from (the same file, database or server). `overwrite` lets a restore replace
 * data (an existing file, tables, collections). No kind is named here: the registry says which sources are
 * databases and how each goes back.
 */
import type { Readable } from 'node:stream'
import type { SourceConfig } from '../config/types.js'
import { sourceFactory } from '../sources/all.js'
import type { DatabaseRestore } from '../sources/types.js'
import { forEachTarEntry } from '../tar/forEachTarEntry.js'

export interface RestoreDatabasesOptions {
  overwrite?: boolean
  signal?: AbortSignal
  log(message: string): void
  /** Each source once it is restored (a later failure leaves it restored). */
  onRestored?(name: string): void
}

/** How `source`'s dump is restored, when its kind is a database (a live Redis server's is not restorable). */
export function restoreOf(source: SourceConfig): DatabaseRestore | undefined {
  const restore = sourceFactory(source.type)?.restore
  return restore && (restore.restorable?.(source) ?? true) ? restore : undefined
}

async function restoreEntry(source: SourceConfig, entry: Readable, options: RestoreDatabasesOptions): Promise<string> {
  const restore = sourceFactory(source.type)?.restore
  if (!restore) throw new Error(`source "${source.name}" (${source.type}) is not a database`)
  return restore.restore(entry, source, { overwrite: options.overwrite ?? false, signal: options.signal })
}

/** Restores every chosen database source found in the archive; rejects when one is missing or fails. */
export async function restoreDatabases(
  archive: Readable,
  sources: SourceConfig[],
  options: RestoreDatabasesOptions,
  allSources: SourceConfig[] = sources,
): Promise<string[]> {
  const wanted = new Map(sources.map((source) => [source.name, source]))
  // The original service archives source i of a type as `./<type>_<n>/...` (n counting that type from 1).
  const originalFolders = new Map<string, string>()
  const counters = new Map<string, number>()
  for (const source of allSources) {
    const n = (counters.get(source.type) ?? 0) + 1
    counters.set(source.type, n)
    originalFolders.set(`${source.type}_${n}`, source.name)
  }
  const restored: string[] = []
  await forEachTarEntry(archive, async (header, stream) => {
    // Every wanted source restored: the rest of the archive is not read.
    if (wanted.size === 0) return 'stop'
    const top = header.name.replace(/^(\.\/)+/, '').split('/')[0] ?? ''
    const source = wanted.get(top) ?? wanted.get(originalFolders.get(top) ?? '')
    if (!source || header.type !== 'file') return
    wanted.delete(source.name)
    options.log(`restoring source "${source.name}" (${source.type}) from ${header.name}`)
    try {
      // tar-stream's entries are streamx streams: the restore functions take Node streams.
      const where = await restoreEntry(source, stream, options)
      restored.push(source.name)
      options.onRestored?.(source.name)
      options.log(`restored source "${source.name}" into ${where}`)
    } catch (err) {
      throw new Error(`source "${source.name}": ${(err as Error).message}${options.overwrite ? '' : " (the CLI's --force replaces existing data)"}`, {
        cause: err,
      })
    }
  })
  if (wanted.size > 0) throw new Error(`not in the snapshot: source(s) ${[...wanted.keys()].map((n) => `"${n}"`).join(', ')}`)
  return restored
}
