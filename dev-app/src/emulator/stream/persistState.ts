/**
 * @module emulator/stream/persistState
 * Keeps the in-memory state (videos, storage checksums) in `{dataDir}/state.json` when the caller
 * chose a `dataDir`, so a restarted emulator (e.g. `npm start` again) still knows the videos the
 * CMS documents point at. Written atomically (temp file + rename) whenever it changed, checked every
 * `intervalMs` and once more on close; the interval timer never keeps the process alive.
 */
import { randomUUID } from 'node:crypto'
import { readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { EmulatorContext } from '../context.js'
import type { CollectionRecord } from './CollectionStore.js'
import type { VideoRecord } from './VideoStore.js'

interface SavedState {
  version: 1
  videos: (Omit<VideoRecord, 'dateUploaded'> & { dateUploaded: string })[]
  checksums: [string, string][]
  /** The first library's; absent in state saved before collections existed. */
  collections?: CollectionRecord[]
  /** The extra zones' checksums, by zone name (`storage.extraZones`). */
  zoneChecksums?: Record<string, [string, string][]>
  /** The extra libraries' collections, by library id (`stream.extraLibraries`). */
  libraryCollections?: Record<string, CollectionRecord[]>
}

export const STATE_FILE = 'state.json'

/** Reads the saved state into `ctx` and its extra zones and libraries; a missing or unreadable file means a fresh start. Returns every video. */
export async function loadState(ctx: EmulatorContext): Promise<VideoRecord[]> {
  let saved: SavedState
  try {
    saved = JSON.parse(await readFile(path.join(ctx.dirs.root, STATE_FILE), 'utf8')) as SavedState
  } catch {
    return []
  }
  if (saved.version !== 1) return []
  for (const [key, value] of saved.checksums) ctx.checksums.set(key, value)
  for (const [zoneName, checksums] of Object.entries(saved.zoneChecksums ?? {})) {
    const zone = ctx.zone(zoneName)
    if (zone && zone !== ctx) for (const [key, value] of checksums) zone.checksums.set(key, value)
  }
  const videos = []
  for (const library of ctx.libraries()) {
    const own = saved.videos
      .filter((video) => video.libraryId === library.options.libraryId)
      .map((video) => ({ ...video, dateUploaded: new Date(video.dateUploaded) }))
    library.videos.restore(own)
    library.collections.restore((library === ctx ? saved.collections : saved.libraryCollections?.[String(library.options.libraryId)]) ?? [])
    videos.push(...own)
  }
  return videos
}

export interface StatePersistence {
  /** Writes now if anything changed since the last write. */
  flush(): Promise<void>
  /** Stops the timer after a last flush. */
  stop(): Promise<void>
}

export function persistState(ctx: EmulatorContext, intervalMs = 500): StatePersistence {
  const file = path.join(ctx.dirs.root, STATE_FILE)
  let last = ''
  let writing: Promise<void> = Promise.resolve()
  const snapshot = (): string => {
    const extraLibraries = ctx.libraries().filter((library) => library !== ctx)
    const extraZones = ctx.options.extraZones.flatMap(({ zoneName }) => ctx.zone(zoneName) ?? [])
    const state: SavedState = {
      version: 1,
      videos: ctx
        .libraries()
        .flatMap((library) => library.videos.list())
        .map((video) => ({ ...video, dateUploaded: video.dateUploaded.toISOString() })),
      checksums: [...ctx.checksums.entries()],
      collections: ctx.collections.list(),
      ...(extraZones.length > 0 && { zoneChecksums: Object.fromEntries(extraZones.map((zone) => [zone.options.zoneName, [...zone.checksums.entries()]])) }),
      ...(extraLibraries.length > 0 && {
        libraryCollections: Object.fromEntries(extraLibraries.map((library) => [String(library.options.libraryId), library.collections.list()])),
      }),
    }
    return JSON.stringify(state)
  }
  const flush = (): Promise<void> => {
    writing = writing.then(async () => {
      const text = snapshot()
      if (text === last) return
      const tmp = `${file}.${randomUUID()}.tmp`
      await writeFile(tmp, text)
      await rename(tmp, file)
      last = text
    })
    return writing.catch((error: unknown) => ctx.log(`saving state failed: ${(error as Error).message}`))
  }
  const timer = setInterval(() => void flush(), intervalMs)
  timer.unref()
  return {
    flush,
    async stop() {
      clearInterval(timer)
      await flush()
    },
  }
}
