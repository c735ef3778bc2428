/**
 * @module cli/migrateFiles
 * `payload storage-host migrate --collection <slug>`: moves a storage collection's existing files (the
 * original and every image size) from where Payload kept them before (`--from local`: the collection's
 * `staticDir`; `--from s3`: the bucket of the official S3 adapter; `cli/fileSources.ts`) onto its zone, at
 * the keys the plugin reads them from, then records the document's folder.
 * - Safe to run again, and after a kill: an object already on the zone with the same size and SHA-256 is
 *   not sent again, and a document already in its final form is not written.
 * - Every upload carries its SHA-256 (`Checksum`), so the host refuses bytes that differ; each page of
 *   documents is then listed back and every object's size and digest compared with the source's file.
 * - `--dry-run` reads and compares, and writes nothing.
 * A file missing at the source is reported and counted, never fatal: the other documents still move.
 */
import { posix } from 'node:path'

import type { Payload } from 'payload'

import { INTERNAL_UPDATE_CONTEXT } from '../constants.js'
import { documentFolder, objectKey, sanitizePrefix } from '../keys/objectKeys.js'
import type { ResolvedCollection, ResolvedStorage } from '../options/resolveOptions.js'
import { listDirectory, putObject, type StorageListEntry } from '../upstream/storageApi.js'
import { SKIP_UPLOAD_HOOKS } from '../wiring/uploadHooks.js'
import type { FileSource, LocalCopy } from './fileSources.js'

/** What a migration reads and writes; `Target` is the collection with its zone (files) or its library (videos). */
export interface MigrateInput<Target extends ResolvedCollection = ResolvedCollection & { storage: ResolvedStorage }> {
  payload: Payload
  collection: Target
  /** Where the files are now (`cli/fileSources.ts`). */
  source: FileSource
  dryRun: boolean
  /** One line of progress or trouble. */
  log(line: string): void
  /** Documents per page (one listing of each folder per page). @default 50 */
  pageSize?: number
}

export interface MigrateResult {
  documents: number
  uploaded: number
  bytesUploaded: number
  alreadyThere: number
  rewritten: number
  /** One line per file that could not be moved (the command exits 1 when there is any). */
  failures: string[]
}

type StoredDoc = {
  id: number | string
  filename?: unknown
  mimeType?: unknown
  prefix?: unknown
  _objectKey?: unknown
  sizes?: Record<string, { filename?: unknown; mimeType?: unknown } | null> | null
}

interface FileToMove {
  docId: number | string
  name: string
  key: string
  mimeType: string
  /** Set once the local file was read. */
  size?: number
  digest?: string
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '')
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

/** The document's files: the original and each size that has one. */
function filesOf(doc: StoredDoc, collectionPrefix: string): FileToMove[] {
  const folder = documentFolder(doc)
  const file = (name: string, mimeType: unknown): FileToMove => ({
    docId: doc.id,
    key: objectKey(collectionPrefix, folder, name),
    mimeType: text(mimeType) || text(doc.mimeType) || 'application/octet-stream',
    name,
  })
  const files = text(doc.filename) ? [file(text(doc.filename), doc.mimeType)] : []
  for (const size of Object.values(doc.sizes ?? {})) if (size && text(size.filename)) files.push(file(text(size.filename), size.mimeType))
  return files
}

/** The zone's listing of each folder, read once per page. */
class FolderListings {
  private readonly listed = new Map<string, Map<string, StorageListEntry>>()

  constructor(private readonly zone: ResolvedStorage) {}

  async entry(key: string): Promise<StorageListEntry | undefined> {
    const folder = posix.dirname(key) === '.' ? '' : posix.dirname(key)
    let entries = this.listed.get(folder)
    if (!entries) {
      entries = new Map((await listDirectory(this.zone, folder)).map((e) => [e.ObjectName, e]))
      this.listed.set(folder, entries)
    }
    return entries.get(posix.basename(key))
  }

  forget(): void {
    this.listed.clear()
  }
}

const sameObject = (entry: StorageListEntry | undefined, file: FileToMove) =>
  entry !== undefined && !entry.IsDirectory && entry.Length === file.size && (entry.Checksum ?? '').toUpperCase() === file.digest

export async function migrateFiles(input: MigrateInput): Promise<MigrateResult> {
  const { collection, payload, source, dryRun, log } = input
  const zone = collection.storage
  const result: MigrateResult = { alreadyThere: 0, bytesUploaded: 0, documents: 0, failures: [], rewritten: 0, uploaded: 0 }
  const listings = new FolderListings(zone)
  const fail = (file: FileToMove, why: string) => {
    const line = `document ${file.docId}: "${file.name}" ${why}`
    result.failures.push(line)
    log(`  failed: ${line}`)
  }
  const collectionPrefix = sanitizePrefix(collection.prefix)
  const { totalDocs } = await payload.db.count({ collection: collection.slug, where: {} } as never)
  log(`${dryRun ? 'dry run: ' : ''}moving ${totalDocs} document(s) of "${collection.slug}" from ${source.label} to storage zone "${zone.zoneName}"`)

  for (let page = 1; ; page++) {
    // The stored values as they are: read hooks would compute URLs on the host, which is where the files are not yet.
    const found = await payload.db.find<StoredDoc>({ collection: collection.slug, limit: input.pageSize ?? 50, page, pagination: true, sort: 'id' })
    const sent: FileToMove[] = []
    for (const doc of found.docs) {
      result.documents++
      let moved = 0
      let complete = true
      for (const file of filesOf(doc, collection.prefix)) {
        let local: LocalCopy | undefined
        try {
          local = await source.fetch({ folder: documentFolder(doc), name: file.name })
        } catch (err) {
          fail(file, `could not be read from ${source.label}: ${(err as Error).message}`)
          complete = false
          continue
        }
        const there = await listings.entry(file.key)
        if (!local) {
          // Nothing to compare with: an object already on the zone is taken as moved by an earlier run.
          if (there && !there.IsDirectory) result.alreadyThere++
          else {
            fail(file, `is neither in ${source.label} nor on the zone`)
            complete = false
          }
          continue
        }
        try {
          file.size = local.size
          file.digest = local.digest
          if (sameObject(there, file)) {
            result.alreadyThere++
            continue
          }
          if (dryRun) {
            log(`  would upload ${file.key} (${mib(local.size)})`)
            continue
          }
          await putObject(zone, file.key, { path: local.path, size: local.size }, file.mimeType, local.digest)
          sent.push(file)
          moved++
          result.uploaded++
          result.bytesUploaded += local.size
        } catch (err) {
          fail(file, `could not be uploaded: ${(err as Error).message}`)
          complete = false
        } finally {
          await local.release()
        }
      }
      const rewrite = complete && !dryRun && !sanitizePrefix(text(doc.prefix)) && collectionPrefix
      if (rewrite) {
        // The folder it now lives in, recorded: a later change of the collection's `prefix` option does not move it.
        await payload.update({
          collection: collection.slug,
          context: { [INTERNAL_UPDATE_CONTEXT]: true, [SKIP_UPLOAD_HOOKS]: true },
          data: { prefix: collectionPrefix },
          depth: 0,
          id: doc.id,
          overrideAccess: true,
        })
        result.rewritten++
      }
      log(`[${result.documents}/${totalDocs}] document ${doc.id} "${text(doc.filename)}": ${moved} file(s) uploaded${rewrite ? ', folder recorded' : ''}`)
    }
    // Each object sent in this page, listed back: its size and digest must be the source file's.
    listings.forget()
    for (const file of sent) {
      const there = await listings.entry(file.key)
      if (!sameObject(there, file))
        fail(file, `is on the zone as ${there ? `${there.Length} bytes, SHA-256 ${there.Checksum ?? 'unknown'}` : 'nothing'} after its upload`)
    }
    listings.forget()
    if (!found.hasNextPage) break
  }
  log(
    `${dryRun ? 'dry run: ' : ''}${result.documents} document(s): ${result.uploaded} file(s) uploaded (${mib(result.bytesUploaded)}), ${result.alreadyThere} already on the zone, ` +
      `${result.rewritten} document(s) rewritten, ${result.failures.length} failed`,
  )
  return result
}
