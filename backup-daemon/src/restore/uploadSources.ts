/**
 * @module restore/uploadSources
 * After a snapshot's files are unpacked (`restore --to DIR`), puts the sources that live in a service
 * (a video library) back by uploading their folders (`SourceFactory.uploadRestore`): each item gets a new
 * id there, so the old → new map of every source is written as JSON to a file the user names, which a
 * CMS-aware step reads to rewrite its documents. The map is written after each source and when one
 * fails (what was put back before the failure), so a failed restore never loses the ids already made.
 * No kind is named here: the registry says which sources restore by uploading.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SourceConfig } from '../config/types.js'
import { sourceFactory } from '../sources/all.js'
import type { UploadRestoreResult } from '../sources/types.js'

/** The `--guid-map` file: per source name, what it went into, old id → new id, and what was left out. */
export type UploadMap = Record<string, UploadRestoreResult & { failed?: string }>

export interface UploadSourcesOptions {
  /** The folder the snapshot was unpacked into: holds `<source name>/`. */
  dir: string
  /** Where the map goes (JSON); none: the map is only logged. */
  mapFile?: string
  /** Another target than each source's own (e.g. a library id). */
  targetId?: number
  signal?: AbortSignal
  log(level: 'info' | 'warn', message: string): void
}

/** The sources of `sources` that restore by uploading. */
export function uploadableSources(sources: SourceConfig[]): SourceConfig[] {
  return sources.filter((source) => sourceFactory(source.type)?.uploadRestore)
}

/** Uploads every chosen source's folder; resolves with the map, rejects naming the failing source. */
export async function uploadSources(sources: SourceConfig[], options: UploadSourcesOptions): Promise<UploadMap> {
  const map: UploadMap = {}
  const save = async () => {
    if (options.mapFile) await writeFile(options.mapFile, `${JSON.stringify(map, null, 2)}\n`, { mode: 0o600 })
  }
  for (const source of uploadableSources(sources)) {
    const restore = sourceFactory(source.type)!.uploadRestore!
    try {
      map[source.name] = await restore.upload(source, {
        folder: join(options.dir, source.name),
        ...(options.targetId !== undefined && { targetId: options.targetId }),
        signal: options.signal,
        log: options.log,
      })
      await save()
    } catch (err) {
      const partial = (err as { partial?: UploadRestoreResult }).partial
      if (partial) {
        map[source.name] = { ...partial, failed: (err as Error).message }
        await save()
      }
      const kept = options.mapFile && partial ? ` (what was restored before is in ${options.mapFile})` : ''
      throw new Error(`source "${source.name}": ${(err as Error).message}${kept}`, { cause: err })
    }
  }
  return map
}

/** The summary's part for the uploads: per source what was uploaded and skipped, and where the map is. */
export function describeUploads(map: UploadMap, mapFile?: string): string {
  const counts = Object.entries(map).map(([name, result]) => `${name}: ${Object.keys(result.ids).length} uploaded, ${result.skipped.length} skipped`)
  return `${counts.join('; ')}${mapFile ? ` (old → new ids in ${mapFile})` : ''}`
}
