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
import { newDigest, type DigestKind } from '../../tar/fileDigest.js'
import type { RecordedFile } from '../../tar/snapshotRecord.js'

export interface FileComparison {
  /** Files compared (present in both). */
  compared: number
  bytes: number
  /** One line per difference, in archive order (missing and differing), then the extra files. */
  differences: string[]
}

/** Regular files below `dir`, as `/`-separated paths relative to it. */
async function* filesBelow(dir: string, prefix = ''): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const name = prefix + entry.name
    if (entry.isDirectory()) yield* filesBelow(join(dir, entry.name), `${name}/`)
    else if (entry.isFile()) yield name
  }
}

async function digestOf(path: string, kind: DigestKind, signal: AbortSignal): Promise<{ size: number; digest: string }> {
  const digest = newDigest(kind)
  let size = 0
  for await (const chunk of createReadStream(path, { signal, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    digest.update(chunk)
    size += chunk.length
  }
  return { size, digest: digest.hex() }
}

export async function compareFiles(
  dir: string,
  recorded: readonly RecordedFile[],
  kind: DigestKind,
  options: { signal: AbortSignal; onFile?(name: string, bytes: number): void },
): Promise<FileComparison> {
  const onDisk = new Set<string>()
  for await (const name of filesBelow(dir)) onDisk.add(name)
  const result: FileComparison = { compared: 0, bytes: 0, differences: [] }
  const expected = new Set<string>()
  for (const [name, size, digest] of recorded) {
    options.signal.throwIfAborted()
    expected.add(name)
    if (!onDisk.has(name)) {
      result.differences.push(`${name}: missing from the restore (recorded ${size} bytes)`)
      continue
    }
    const found = await digestOf(join(dir, name), kind, options.signal)
    result.compared++
    result.bytes += found.size
    options.onFile?.(name, found.size)
    if (found.size !== size) result.differences.push(`${name}: ${found.size} bytes restored, the backup recorded ${size}`)
    else if (found.digest !== digest) result.differences.push(`${name}: ${kind} ${found.digest} restored, the backup recorded ${digest}`)
  }
  for (const name of onDisk) if (!expected.has(name)) result.differences.push(`${name}: restored but not in the record`)
  return result
}
