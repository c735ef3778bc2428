/**
 * @module sources/hostStream/drill
 * How a restore drill proves a `host-stream` source's snapshot restores (`SourceDrill`): every video the
 * backup recorded (`StreamLibrarySource.recorded`: GUID, title, archived file, size, sha256, as
 * library.json lists them) has its file in the drill's scratch folder with that size and sha256, and
 * `library.json` and each `<guid>/video.json` are there and parse. The record's crc32 per file already
 * catches a changed byte; this proves the bytes are the ones the host served (sha256), per video, and
 * says which video (GUID and title) a difference hurts. `restoredIds` answers the GUIDs library.json
 * lists, for the CMS check (`restore/drill/cmsCheck`).
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import type { SourceDrill } from '../types.js'
import type { HostStreamSourceConfig } from './schema.js'
import type { LibraryJson } from './videoRecord.js'

/** What the source records at backup: library.json's list, without the kinds. */
export interface StreamLibraryRecord {
  videos: { guid: string; title: string; file: string | null; size: number | null; sha256: string | null }[]
}

type Files = { name: string; path: string }[]

/** The restored file of `<source>/<relative>`, if any. */
const pathOf = (files: Files, source: string, relative: string): string | undefined => files.find((f) => f.name === `${source}/${relative}`)?.path

async function readJson<T>(path: string | undefined): Promise<{ value?: T; problem?: string }> {
  if (!path) return { problem: 'not in the snapshot' }
  try {
    return { value: JSON.parse(await readFile(path, 'utf8')) as T }
  } catch (err) {
    return { problem: `does not parse: ${(err as Error).message.slice(0, 200)}` }
  }
}

async function sha256Of(path: string, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, { signal })) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export const hostStreamDrill: SourceDrill<HostStreamSourceConfig> = {
  async check({ config, files, recorded, signal }) {
    const differences: string[] = []
    const library = await readJson<LibraryJson>(pathOf(files, config.name, 'library.json'))
    if (library.problem) differences.push(`library.json: ${library.problem}`)
    else if (!Array.isArray(library.value?.videos)) differences.push('library.json: holds no list of videos')
    const videos = (recorded as StreamLibraryRecord | undefined)?.videos
    if (!Array.isArray(videos)) {
      differences.push(`the snapshot's record holds no list of videos for source "${config.name}"`)
      return { checked: 'no recorded videos', differences }
    }
    const listed = new Set((library.value?.videos ?? []).map((v) => v.guid))
    let proven = 0
    let bytes = 0
    for (const video of videos) {
      signal.throwIfAborted()
      const what = `video ${video.guid} ("${video.title}")`
      const before = differences.length
      if (library.value && !listed.has(video.guid)) differences.push(`${what}: not in the restored library.json`)
      const json = await readJson<{ guid?: string }>(pathOf(files, config.name, `${video.guid}/video.json`))
      if (json.problem) differences.push(`${what}: ${video.guid}/video.json ${json.problem}`)
      else if (json.value?.guid !== video.guid) differences.push(`${what}: ${video.guid}/video.json names another video (${String(json.value?.guid)})`)
      if (video.file) {
        const name = `${video.guid}/${video.file}`
        const path = pathOf(files, config.name, name)
        const size = path ? (await stat(path).catch(() => undefined))?.size : undefined
        if (size === undefined) differences.push(`${what}: ${name} is not in the snapshot (recorded ${video.size} bytes)`)
        else if (size !== video.size) differences.push(`${what}: ${name}: ${size} bytes restored, the backup recorded ${video.size}`)
        else if ((await sha256Of(path!, signal)) !== video.sha256) differences.push(`${what}: ${name}: sha256 differs from the recorded ${video.sha256}`)
        else bytes += size
      }
      if (differences.length === before) proven++
    }
    return { checked: `${proven} of ${videos.length} video(s) (${bytes} bytes) match the recorded sizes and sha256`, differences }
  },

  async restoredIds({ config, files }) {
    const library = await readJson<LibraryJson>(pathOf(files, config.name, 'library.json'))
    if (library.problem || !Array.isArray(library.value?.videos)) {
      throw new Error(`source "${config.name}": library.json ${library.problem ?? 'holds no list of videos'}`)
    }
    return new Set(library.value.videos.map((v) => v.guid))
  },
}
