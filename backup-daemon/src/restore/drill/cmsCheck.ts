/**
 * @module restore/drill/cmsCheck
 * The restore drill's check of a Payload CMS as a whole (`jobs[].drill.cms`, `config/cmsCheckConfig`):
 * the snapshot is only a usable copy of the site if every document's media came with it. From the
 * database restored into the drill's scratch folder, read through its kind's drill (`SourceDrill.readTables`,
 * read-only; a dump kind restores it into a scratch database of its own, freed by `close` when done),
 * every upload document's file and image sizes must be in the restored uploads source's folder, and every
 * video document's `hostData.stream.videoId` among the GUIDs of the restored videos source
 * (`SourceDrill.restoredIds`). No kind is named: the registry says which kinds can answer.
 */
import { stat } from 'node:fs/promises'
import { join, posix } from 'node:path'
import type { CmsCheckConfig, CmsCollectionConfig } from '../../config/cmsCheckConfig.js'
import type { SourceConfig } from '../../config/types.js'
import { sourceFactory } from '../../sources/all.js'
import type { DrillCheck, DrillTablesOptions, RestoredTables } from '../../sources/types.js'

export interface CmsCheckOptions {
  cms: CmsCheckConfig
  sources: readonly SourceConfig[]
  /** A source's file entries as restored into the scratch folder. */
  entriesOf(source: string): { name: string; path: string }[]
  /** Where the files were restored: `<filesDir>/<source name>/…`. */
  filesDir: string
  /** A scratch folder of the CMS check's own, where the database's reader may restore a dump to. */
  scratch: string
  databaseServer: DrillTablesOptions['databaseServer']
  log: DrillTablesOptions['log']
  signal: AbortSignal
}

/** The column of `hostData.stream.videoId` (plugin-storage's field) in Payload's SQL schema. */
const videoIdColumn = 'host_data_stream_video_id'
/** Payload's SQL adapters name tables and columns in snake case (`myMedia`, `my-media`: `my_media`). */
const snake = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase()

/** Without `collections`: a table with the video id column holds videos; one with `filename` and `mime_type`, uploads. */
function detect(tables: RestoredTables['tables'], cms: CmsCheckConfig): CmsCollectionConfig[] {
  return Object.entries(tables).flatMap(([table, columns]): CmsCollectionConfig[] => {
    if (table.startsWith('_')) return [] // versions tables repeat the documents
    if (columns.includes(videoIdColumn)) return cms.videos ? [{ slug: table, table, check: 'videos', prefix: '' }] : []
    if (columns.includes('filename') && columns.includes('mime_type')) return cms.uploads ? [{ slug: table, table, check: 'uploads', prefix: '' }] : []
    return []
  })
}

export async function cmsCheck(options: CmsCheckOptions): Promise<DrillCheck> {
  const { cms, sources, entriesOf, signal } = options
  const database = sources.find((s) => s.name === cms.database)
  const reader = database && sourceFactory(database.type)?.drill?.readTables
  if (!database || !reader) {
    const what = database ? `a ${database.type} source, whose kind cannot read its restored tables` : 'not a source of this job'
    return { checked: '', differences: [`source "${cms.database}" is ${what}: the CMS check needs the job's database source`] }
  }
  let db: RestoredTables
  try {
    const { scratch, databaseServer, log } = options
    db = await reader({ config: database, files: entriesOf(database.name), scratch, databaseServer, log, signal })
  } catch (err) {
    if (signal.aborted) throw signal.reason
    return { checked: '', differences: [`the restored database cannot be read: ${(err as Error).message}`] }
  }
  try {
    return await checkDocuments(db, options)
  } finally {
    await db.close()
  }
}

/** Every upload document's files and every video document's GUID against the restored sources. */
async function checkDocuments(db: RestoredTables, { cms, sources, entriesOf, filesDir, signal }: CmsCheckOptions): Promise<DrillCheck> {
  const differences: string[] = []
  const collections = cms.collections ?? detect(db.tables, cms)
  if (collections.length === 0) differences.push('found no upload or video collection in the restored database')
  let videoIds: Set<string> | undefined
  let files = 0
  let videos = 0
  for (const collection of collections) {
    signal.throwIfAborted()
    const table = collection.table ?? snake(collection.slug)
    const columns = db.tables[table]
    const where = `collection "${collection.slug}"`
    if (!columns) {
      differences.push(`${where}: no table "${table}" in the restored database`)
      continue
    }
    if (collection.check === 'videos') {
      if (!columns.includes(videoIdColumn)) {
        differences.push(`${where}: table "${table}" has no column ${videoIdColumn} (hostData.stream.videoId)`)
        continue
      }
      videoIds ??= await restoredVideoIds(cms, sources, entriesOf, signal, differences)
      if (!videoIds) continue
      for (const row of await db.rows(table, ['id', videoIdColumn], signal)) {
        const guid = row[videoIdColumn]
        if (typeof guid !== 'string' || !guid) continue // no video bound yet: nothing to restore
        videos++
        if (!videoIds.has(guid))
          differences.push(`${where}, document ${String(row.id)}: video ${guid} is not in the snapshot's library (source "${cms.videos}")`)
      }
      continue
    }
    if (!cms.uploads) {
      differences.push(`${where}: checks uploads, but drill.cms.uploads names no source`)
      continue
    }
    const sizes = columns.filter((c) => /^sizes_.+_filename$/.test(c))
    const folders = ['prefix', '_objectkey', '_object_key'].filter((c) => columns.includes(c))
    if (!columns.includes('filename')) {
      differences.push(`${where}: table "${table}" has no filename column (not an upload collection)`)
      continue
    }
    for (const row of await db.rows(table, ['id', 'filename', ...folders, ...sizes], signal)) {
      // As the storage plugin keys an object: the document's folder (prefix, client upload's key), else the collection's prefix.
      const folder =
        folders
          .map((c) => row[c])
          .filter((v): v is string => typeof v === 'string' && v !== '')
          .join('/') || collection.prefix
      for (const column of ['filename', ...sizes]) {
        const name = row[column]
        if (typeof name !== 'string' || !name) continue
        files++
        const size = column === 'filename' ? '' : ` (size ${column.slice('sizes_'.length, -'_filename'.length)})`
        const key = posix.normalize(posix.join(folder, name))
        if (key.startsWith('../') || !(await isFile(join(filesDir, cms.uploads, key)))) {
          differences.push(`${where}, document ${String(row.id)}: file ${key}${size} is not in the snapshot (source "${cms.uploads}")`)
        }
      }
    }
  }
  return { checked: `${files} upload file(s) and ${videos} video(s) of ${collections.length} collection(s) are in the snapshot`, differences }
}

async function restoredVideoIds(
  cms: CmsCheckConfig,
  sources: readonly SourceConfig[],
  entriesOf: CmsCheckOptions['entriesOf'],
  signal: AbortSignal,
  differences: string[],
): Promise<Set<string> | undefined> {
  const source = sources.find((s) => s.name === cms.videos)
  const lister = source && sourceFactory(source.type)?.drill?.restoredIds
  if (!source || !lister) {
    differences.push(
      cms.videos ? `source "${cms.videos}" cannot list the restored video ids` : 'a collection checks videos, but drill.cms.videos names no source',
    )
    return undefined
  }
  try {
    return await lister({ config: source, files: entriesOf(source.name), signal })
  } catch (err) {
    if (signal.aborted) throw signal.reason
    differences.push((err as Error).message)
    return undefined
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false
}
