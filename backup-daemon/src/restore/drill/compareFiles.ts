/**
 * @module restore/drill/compareFiles
 * The files half of a restore drill: every regular file restored into the scratch folder is read back from
 * the disk and its size and digest compared with the snapshot's record (`tar/snapshotRecord.ts`), and the
 * set of files must be the recorded one (none missing, none extra). Reading back what was written (not the
 * tar's bytes on their way) is the point: it proves the files as a restore leaves them.
 */
import { createReadStream } from 'node:fs'
import { readdir } from 'node:fs/promises'
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
  /** One line per difference, in the expected order (missing and differing), then the extra files. */
  differences: string[]
}

/** Regular files below `dir`, as `/`-separated paths relative to it (names decoded from their bytes). */
async function* filesBelow(dir: string, prefix = ''): AsyncGenerator<string> {
  for (const entry of await readdir(fsName(dir), { withFileTypes: true, encoding: 'buffer' })) {
    const entryName = decodeName(entry.name)
    const name = prefix + entryName
    if (entry.isDirectory()) yield* filesBelow(join(dir, entryName), `${name}/`)
    else if (entry.isFile()) yield name
  }
}

async function digestOf(path: string, kind: DigestKind | undefined, signal: AbortSignal): Promise<{ size: number; digest?: string }> {
  const digest = kind && newDigest(kind)
  let size = 0
  for await (const chunk of createReadStream(fsName(path), { signal, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    digest?.update(chunk)
    size += chunk.length
  }
  return { size, ...(digest && { digest: digest.hex() }) }
}

/** A restored name as a listing that cannot carry bytes that are not UTF-8 shows it (each such byte as U+FFFD). */
const lossyForm = (name: string) => name.replace(/[\udc80-\udcff]/gu, '\ufffd')

export async function compareFiles(
  dir: string,
  expected: readonly ExpectedFile[],
  options: { signal: AbortSignal; onFile?(name: string, bytes: number): void },
): Promise<FileComparison> {
  const onDisk = new Set<string>()
  /** Restored names by their lossy form, for expected names that came lossy. */
  const byLossyForm = new Map<string, string[]>()
  for await (const name of filesBelow(dir)) {
    onDisk.add(name)
    const form = lossyForm(name)
    byLossyForm.set(form, [...(byLossyForm.get(form) ?? []), name])
  }
  const result: FileComparison = { compared: 0, bytes: 0, differences: [] }
  const matched = new Set<string>()
  for (const file of expected) {
    options.signal.throwIfAborted()
    const restored = file.lossy ? byLossyForm.get(file.name)?.find((name) => !matched.has(name)) : onDisk.has(file.name) ? file.name : undefined
    const shown = escapeName(file.name)
    if (restored === undefined || matched.has(restored)) {
      result.differences.push(`${shown}: missing from the restore (recorded ${file.size} bytes)`)
      continue
    }
    matched.add(restored)
    const found = await digestOf(join(dir, restored), file.digest?.kind, options.signal)
    result.compared++
    result.bytes += found.size
    options.onFile?.(restored, found.size)
    if (found.size !== file.size) result.differences.push(`${shown}: ${found.size} bytes restored, the backup recorded ${file.size}`)
    else if (file.digest && found.digest !== file.digest.value)
      result.differences.push(`${shown}: ${file.digest.kind} ${found.digest} restored, the backup recorded ${file.digest.value}`)
  }
  for (const name of onDisk) if (!matched.has(name)) result.differences.push(`${escapeName(name)}: restored but not in the record`)
  return result
}
