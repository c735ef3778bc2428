/**
 * @module restore/drill/compareFiles
 * The files half of a restore drill: every regular file restored into the scratch folder is read back from
 * the disk and its size and digest compared with the snapshot's record (`tar/snapshotRecord.ts`), and the
 * set of files must be the recorded one (none missing, none extra, none recorded twice). Reading back what
 * was written (not the tar's bytes on their way) is the point: it proves the files as a restore leaves them.
 *
 * Memory does not grow with the number of files (issue 42: a million files took 2 GB): the expected files
 * are read as they come (`expected()` may be called again), the restored tree is walked once for its real
 * folders (a recorded file is looked up only in one, so no link on its way is followed) and its count of
 * files, and each file compared keeps 8 bytes, a hash of its name. Only a drill whose counts or hashes do
 * not add up walks again with every name in memory, to say which files are extra or recorded twice.
 */
import { createHash } from 'node:crypto'
import { constants, createReadStream } from 'node:fs'
import { open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { escapeName } from '../../logs/escapeControl.js'
import { decodeName, fsName } from '../../tar/byteNames.js'
import { newDigest, type DigestKind } from '../../tar/fileDigest.js'

/** A file a drill expects to find restored: its size and, where the backup recorded one, its digest. */
export interface ExpectedFile {
  /** Archive path (`<source name>/…`). */
  name: string
  size: number
  /** The digest the backup recorded; none: the repository checked the bytes by its own hashes as it read them (restic). */
  digest?: { kind: DigestKind; value: string }
  /** The name came from a listing that writes U+FFFD for each byte that is not UTF-8 (restic's JSON): matched in that form. */
  lossy?: boolean
}

export interface FileComparison {
  /** Files compared (present in both). */
  compared: number
  bytes: number
  /** One line per difference: missing and differing in the expected order, then those recorded twice and the extra files. */
  differences: string[]
}

/** What one walk of the restored tree keeps: its real folders, its count of files, and the names a lossy listing must match. */
interface RestoredTree {
  folders: Set<string>
  files: number
  /** Restored names holding bytes that are not UTF-8, by the form a lossy listing gives them. */
  byLossyForm: Map<string, string[]>
}

/** A restored name as a listing that cannot carry bytes that are not UTF-8 shows it (each such byte as U+FFFD). */
const lossyForm = (name: string) => name.replace(/[\udc80-\udcff]/gu, '\ufffd')

/** Regular files below `dir`, as `/`-separated paths relative to it (names decoded from their bytes); `onFolder` each real folder. */
async function* filesBelow(dir: string, prefix = '', onFolder?: (name: string) => void): AsyncGenerator<string> {
  for (const entry of await readdir(fsName(dir), { withFileTypes: true, encoding: 'buffer' })) {
    const entryName = decodeName(entry.name)
    const name = prefix + entryName
    if (entry.isDirectory()) {
      onFolder?.(name)
      yield* filesBelow(join(dir, entryName), `${name}/`, onFolder)
    } else if (entry.isFile()) yield name
  }
}

async function walk(dir: string): Promise<RestoredTree> {
  const tree: RestoredTree = { folders: new Set(['']), files: 0, byLossyForm: new Map() }
  for await (const name of filesBelow(dir, '', (folder) => tree.folders.add(folder))) {
    tree.files++
    const form = lossyForm(name)
    if (form !== name) tree.byLossyForm.set(form, [...(tree.byLossyForm.get(form) ?? []), name])
  }
  return tree
}

/** The size and digest of the regular file at `path`; undefined when there is none (a link, a folder, nothing). */
async function digestOf(path: string, kind: DigestKind | undefined, signal: AbortSignal): Promise<{ size: number; digest?: string } | undefined> {
  const handle = await open(fsName(path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined)
  if (!handle) return undefined
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return undefined
    const digest = kind && newDigest(kind)
    if (stat.size <= smallFile) {
      // One read for a small file (most of a tree of a million): a stream per file cost more than its bytes.
      const buffer = Buffer.allocUnsafe(stat.size + 1)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      if (bytesRead <= stat.size) {
        digest?.update(buffer.subarray(0, bytesRead))
        return { size: bytesRead, ...(digest && { digest: digest.hex() }) }
      }
    }
    let size = 0
    for await (const chunk of createReadStream('', { fd: handle.fd, autoClose: false, signal, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
      digest?.update(chunk)
      size += chunk.length
    }
    return { size, ...(digest && { digest: digest.hex() }) }
  } finally {
    await handle.close()
  }
}

/** Files read back at once: each is a few calls on the thread pool (open, stat, read, close), which one at a time left idle. */
const inFlight = 16

/** Files up to this size are read with one call. */
const smallFile = 256 * 1024

const parentOf = (name: string) => name.slice(0, Math.max(0, name.lastIndexOf('/')))

/** Hashes of names, 8 bytes each, in an array that doubles as it fills. */
class NameHashes {
  private values = new BigUint64Array(1024)
  count = 0
  add(name: string): void {
    if (this.count === this.values.length) {
      const grown = new BigUint64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.count++] = createHash('sha1').update(name).digest().readBigUInt64LE(0)
  }
  /** Whether two of them are equal (a name compared twice). */
  hasRepeats(): boolean {
    const sorted = this.values.slice(0, this.count).sort()
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) return true
    return false
  }
}

export async function compareFiles(
  dir: string,
  expected: () => Iterable<ExpectedFile> | AsyncIterable<ExpectedFile>,
  options: { signal: AbortSignal; onFile?(name: string, bytes: number): void },
): Promise<FileComparison> {
  const tree = await walk(dir)
  const result: FileComparison = { compared: 0, bytes: 0, differences: [] }
  const compared = new NameHashes()
  const lossyMatched = new Set<string>()
  /** Files whose read back is under way, `inFlight` at a time; their results are taken in the record's order. */
  let batch: { file: ExpectedFile; restored: string | undefined; found: Promise<Awaited<ReturnType<typeof digestOf>>> }[] = []
  const settle = async () => {
    for (const { file, restored, found: pending } of batch) {
      const found = await pending
      const shown = escapeName(file.name)
      if (!found) {
        if (file.lossy && restored !== undefined) lossyMatched.delete(restored)
        result.differences.push(`${shown}: missing from the restore (recorded ${file.size} bytes)`)
        continue
      }
      compared.add(restored!)
      result.compared++
      result.bytes += found.size
      options.onFile?.(restored!, found.size)
      if (found.size !== file.size) result.differences.push(`${shown}: ${found.size} bytes restored, the backup recorded ${file.size}`)
      else if (file.digest && found.digest !== file.digest.value)
        result.differences.push(`${shown}: ${file.digest.kind} ${found.digest} restored, the backup recorded ${file.digest.value}`)
    }
    batch = []
  }
  for await (const file of expected()) {
    options.signal.throwIfAborted()
    const restored = file.lossy ? tree.byLossyForm.get(file.name)?.find((name) => !lossyMatched.has(name)) : file.name
    if (file.lossy && restored !== undefined) lossyMatched.add(restored)
    const readable = restored !== undefined && tree.folders.has(parentOf(restored))
    const found = readable ? digestOf(join(dir, restored), file.digest?.kind, options.signal) : Promise.resolve(undefined)
    // Settled in order below; an early rejection must not count as unhandled meanwhile.
    found.catch(() => {})
    batch.push({ file, restored, found })
    if (batch.length === inFlight) await settle()
  }
  await settle()
  if (compared.count !== tree.files || compared.hasRepeats()) await nameTheRest(dir, expected, result, tree)
  return result
}

/** The slow path of a drill that does not add up: every name in memory, to say which were recorded twice and which are extra. */
async function nameTheRest(dir: string, expected: () => Iterable<ExpectedFile> | AsyncIterable<ExpectedFile>, result: FileComparison, tree: RestoredTree) {
  const onDisk = new Set<string>()
  for await (const name of filesBelow(dir)) onDisk.add(name)
  const seen = new Set<string>()
  const lossyMatched = new Set<string>()
  for await (const file of expected()) {
    const restored = file.lossy ? tree.byLossyForm.get(file.name)?.find((name) => !lossyMatched.has(name)) : file.name
    if (restored === undefined || !onDisk.has(restored)) continue
    if (file.lossy) lossyMatched.add(restored)
    if (!seen.has(restored)) seen.add(restored)
    else {
      result.differences.push(`${escapeName(file.name)}: recorded twice (compared once)`)
      result.compared--
    }
  }
  for (const name of onDisk) if (!seen.has(name)) result.differences.push(`${escapeName(name)}: restored but not in the record`)
}
