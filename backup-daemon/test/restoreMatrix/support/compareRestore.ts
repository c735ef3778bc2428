/**
 * @module test/restoreMatrix/support/compareRestore
 * Compares what a restore wrote with the source it came from, one source kind at a time: a folder of
 * restored files (`<folder>/<source name>/…`, as every files path unpacks a snapshot), a database target,
 * or the videos uploaded back into the library. Each check throws one error listing what differs.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { libraryClient } from '../../sources/support/streamLibrary.js'
import { diffFingerprints, mysqlDumpFingerprint, pgDumpFingerprint, rdbFingerprint, sqliteFingerprint, type Fingerprint } from './fingerprints.js'
import type { MatrixServers } from './matrixServers.js'
import type { Expected, SourceName } from './matrixSources.js'
import { diffTrees, readTree } from './treeOnDisk.js'

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

function fail(what: string, lines: string[]): void {
  if (lines.length > 0) throw new Error(`${what} differs from the source:\n  ${lines.join('\n  ')}`)
}

/** The one file of a restored database source's folder (`<folder>/<name>/<file>`), named by its extension. */
function dumpFile(folder: string, name: string, extension: string): string {
  const dir = join(folder, name)
  if (!existsSync(dir)) throw new Error(`${name}/ was not restored`)
  const found = readdirSync(dir).filter((file) => file.endsWith(extension))
  if (found.length !== 1) throw new Error(`${name}/ holds ${found.length} ${extension} file(s): ${readdirSync(dir).join(', ')}`)
  return join(dir, found[0]!)
}

let scratchCount = 0

export interface Comparer {
  /**
   * Source `name` as unpacked under `folder` by a restore from `storage`'s job: by the daemon (its set-id bits
   * cleared, `CompareOptions.setIdCleared`) or by a plain tool (`byDaemon` false: every mode bit as stored).
   */
  restoredFolder(name: SourceName, folder: string, storage: string, byDaemon: boolean): Promise<void>
  /** The videos a restore uploaded into the library, by the map it wrote (`{ videos: { ids } }`). */
  library(mapFile: string): Promise<void>
  database(kind: 'sqlite' | 'pg' | 'maria', actual: Fingerprint): void
}

export function comparer(servers: MatrixServers, expected: Expected): Comparer {
  const { pg, maria, emulator } = servers
  const database = (kind: 'sqlite' | 'pg' | 'maria', actual: Fingerprint) => fail(`the restored ${kind} database`, diffFingerprints(expected[kind], actual))
  /**
   * A dump's fingerprint by its bytes: the paths that restore one snapshot (the API, the CLI, the plain tools,
   * the UI) restore byte-identical dumps, and loading each into a scratch database again would tell nothing
   * new; a dump whose bytes differ in any way is loaded on its own.
   */
  const loaded = new Map<string, Promise<Fingerprint>>()
  const byBytes = (file: string, load: (file: string) => Promise<Fingerprint>) => {
    const key = `${file.split('.').at(-1)}:${sha(readFileSync(file))}`
    if (!loaded.has(key)) loaded.set(key, load(file))
    return loaded.get(key)!
  }
  const scratch = () => `matrix_cmp_${process.pid}_${++scratchCount}`
  return {
    database,
    async restoredFolder(name, folder, storage, byDaemon) {
      switch (name) {
        case 'files':
          return fail('files/', diffTrees(expected.files[storage]!, readTree(join(folder, 'files')), { setIdCleared: byDaemon }))
        case 'db':
          return database('sqlite', sqliteFingerprint(dumpFile(folder, 'db', '.sqlite')))
        case 'pg':
          return database('pg', await byBytes(dumpFile(folder, 'pg', '.dump'), (file) => pgDumpFingerprint(pg, file, scratch())))
        case 'maria':
          return database('maria', await byBytes(dumpFile(folder, 'maria', '.sql'), (file) => mysqlDumpFingerprint(maria, file, scratch())))
        case 'cache':
          return fail('cache/dump.rdb', diffFingerprints(expected.redis, await byBytes(dumpFile(folder, 'cache', '.rdb'), rdbFingerprint), 'redis'))
        case 'zone':
        case 'bucket':
          return fail(`${name}/`, diffTrees(expected[name], readTree(join(folder, name)), { contentOnly: true }))
        case 'videos':
          return fail('videos/', restoredVideos(expected, join(folder, 'videos')))
      }
    },
    async library(mapFile) {
      const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { videos?: { ids: Record<string, string>; skipped: string[]; failed?: string } }
      const ids = map.videos?.ids ?? {}
      const client = libraryClient(emulator)
      const lines: string[] = []
      if (map.videos?.failed) lines.push(`the upload failed: ${map.videos.failed}`)
      for (const video of expected.videos) {
        const copy = ids[video.guid]
        if (!copy) {
          lines.push(`video ${video.guid} was not uploaded (the map has ${Object.keys(ids).length} id(s))`)
          continue
        }
        const { title } = await client.call<{ title: string }>('GET', `videos/${copy}`)
        if (title !== video.title) lines.push(`video ${copy}: title ${JSON.stringify(title)}, the source ${JSON.stringify(video.title)}`)
        const bytes = await client.cdn(`${copy}/original`).catch((err: Error) => err)
        if (bytes instanceof Error) lines.push(`video ${copy}: no original (${bytes.message})`)
        else if (sha(bytes) !== video.sha256) lines.push(`video ${copy}: its original is not the source's bytes`)
        const caption = await client.cdn(`${copy}/captions/en.vtt`).catch((err: Error) => err)
        if (caption instanceof Error) lines.push(`video ${copy}: no caption (${caption.message})`)
        else if (caption.toString('utf8') !== video.caption) lines.push(`video ${copy}: caption differs`)
      }
      fail('the library', lines)
    },
  }
}

/** The restored `videos/` folder: library.json, and per video its video.json (title), original bytes and caption. */
function restoredVideos(expected: Expected, dir: string): string[] {
  if (!existsSync(join(dir, 'library.json'))) return ['library.json is missing']
  const lines: string[] = []
  for (const video of expected.videos) {
    const folder = join(dir, video.guid)
    if (!existsSync(folder)) {
      lines.push(`${video.guid}/ is missing`)
      continue
    }
    const meta = JSON.parse(readFileSync(join(folder, 'video.json'), 'utf8')) as { title?: string }
    if (meta.title !== video.title) lines.push(`${video.guid}/video.json: title ${JSON.stringify(meta.title)}, the source ${JSON.stringify(video.title)}`)
    const original = readdirSync(folder).find((file) => file.startsWith('original.'))
    if (!original) lines.push(`${video.guid}/original.* is missing`)
    else if (sha(readFileSync(join(folder, original))) !== video.sha256) lines.push(`${video.guid}/${original}: not the source's bytes`)
    const caption = join(folder, 'captions', 'en.vtt')
    if (!existsSync(caption)) lines.push(`${video.guid}/captions/en.vtt is missing`)
    else if (readFileSync(caption, 'utf8') !== video.caption) lines.push(`${video.guid}/captions/en.vtt differs`)
  }
  return lines
}
