/**
 * @module repository/restic/resticTar
 * A run's snapshots read back as the one tar stream the rest of the daemon reads (download, restore's
 * `openTar`, verify), the same shape as an archive of the run: `<source name>/…` entries.
 * - A folder source's snapshot is read with `restic dump --archive tar <id> <folder>` and re-packed by our
 *   tar writer with names from the snapshot's absolute path to `<source name>/…`.
 * - A dump source's snapshot is one file, `/<source name>.tar`, our own tar of its entries (already named
 *   `<source name>/…`): `restic dump <id> /<source name>.tar` gives its bytes, passed on without its two end blocks.
 * The length is known before reading (a download's Content-Length): the writer computes it from the
 * snapshot's listing (`restic find --json`, parsed node by node), with the very header code the read uses
 * (`tarSizeOfTree`).
 */
import { PassThrough, Readable } from 'node:stream'
import { forEachTarEntry } from '../../tar/forEachTarEntry.js'
import { TarWriter, type TarHeader } from '../../tar/tarWriter.js'
import type { ListedFile } from '../types.js'
import { jsonObjectsAt } from './jsonObjects.js'
import type { ResticTarget } from './resticProcess.js'
import { resticLockedStream } from './resticSession.js'
import type { RunSource } from './resticRuns.js'

const block = 512
/** What our tar writer ends an archive with (two zero blocks). */
export const tarEnd = 2 * block

/** A node of `restic find --json` (the fields used). */
interface FoundNode {
  path: string
  type: string
  size?: number
  linktarget?: string
}

const tarTypes = { file: 'file', dir: 'directory', symlink: 'symlink' } as const

/** The entry name a snapshot path takes in the run's tar; undefined for the root and paths outside it. */
function entryName(path: string, root: string, source: string): string | undefined {
  const prefix = `${root.replace(/\/+$/, '')}/`.replace(/^\/+/, '')
  const relative = path.replace(/^\/+/, '').replace(/\/+$/, '')
  if (!relative.startsWith(prefix) || relative.length === prefix.length) return undefined
  return `${source}/${relative.slice(prefix.length)}`
}

/** Bytes the header(s) of `header` take, measured with the writer the read uses. */
function headerSize(writer: TarWriter, header: TarHeader, size: number): number {
  writer.header(header, size)
  writer.flush()
  return writer.take().reduce((sum, chunk) => sum + chunk.length, 0)
}

/** A node of a folder source's snapshot as restic lists it, named as in the run's tar. */
export interface TreeNode {
  name: string
  type: 'file' | 'directory' | 'symlink'
  size: number
  linkname?: string
  /**
   * restic's JSON cannot carry a name that is not UTF-8: it writes U+FFFD for each invalid byte (Go's
   * encoding/json). Such a name (or one holding U+FFFD itself) is not the stored one byte for byte.
   */
  lossy: boolean
}

/** The nodes of a folder source's snapshot (`restic find --json`, parsed node by node), below its root. */
export async function* treeNodes(target: ResticTarget, source: RunSource, signal?: AbortSignal): AsyncGenerator<TreeNode> {
  // `[{"matches":[{node},…],…}]`: the nodes are the objects at depth 3, parsed as they come.
  // restic's shared lock: beside another process's exclusive one (a commit's `tag`, a prune, a check) it waits, as a backup does.
  const found = Readable.from(resticLockedStream(target, ['find', '--json', '--snapshot', source.id, '*'], signal ? { signal } : {}), { objectMode: false })
  for await (const node of jsonObjectsAt<FoundNode>(found, 3)) {
    const type = tarTypes[node.type as keyof typeof tarTypes]
    const name = entryName(node.path, source.root, source.name)
    if (!type || !name) continue
    yield {
      name,
      type,
      size: type === 'file' ? (node.size ?? 0) : 0,
      ...(node.linktarget !== undefined && { linkname: node.linktarget }),
      lossy: name.includes('\ufffd') || (node.linktarget?.includes('\ufffd') ?? false),
    }
  }
}

/** The bytes a folder snapshot takes in the run's tar (headers, bodies, padding), from its listing. */
export async function tarSizeOfTree(target: ResticTarget, source: RunSource, signal?: AbortSignal): Promise<number> {
  const writer = new TarWriter(64 * 1024)
  let total = 0
  for await (const node of treeNodes(target, source, signal)) {
    // A name restic's JSON gave lossily has another length in bytes: the tar is measured by reading it instead.
    if (node.lossy) return measureTree(target, source, signal)
    total += headerSize(
      writer,
      { name: node.name, type: node.type, mode: 0o644, mtime: new Date(0), ...(node.linkname !== undefined && { linkname: node.linkname }) },
      node.size,
    )
    total += Math.ceil(node.size / block) * block
  }
  return total
}

/** The bytes of a folder source's part of the run's tar, counted by reading it (`restic dump`, re-packed). */
async function measureTree(target: ResticTarget, source: RunSource, signal?: AbortSignal): Promise<number> {
  let bytes = 0
  for await (const chunk of openRunTar(target, [source], { ...(signal && { signal }) })) bytes += (chunk as Buffer).length
  return bytes - tarEnd
}

/** The files of the folder sources, as restic listed their snapshots: what a drill compares their restore with. */
export async function listedFiles(target: ResticTarget, sources: readonly RunSource[], signal?: AbortSignal): Promise<ListedFile[]> {
  const files: ListedFile[] = []
  for (const source of sources) {
    if (source.form !== 'tree') continue
    for await (const node of treeNodes(target, source, signal)) if (node.type === 'file') files.push({ name: node.name, size: node.size, lossy: node.lossy })
  }
  return files
}

export interface RunTarOptions {
  signal?: AbortSignal
  /** Every chunk's size as it is handed on (a task's progress). */
  onBytes?(bytes: number): void
}

/** The run's tar: its sources' snapshots in order, then the end blocks. Destroying it stops the `restic dump` running. */
export function openRunTar(target: ResticTarget, sources: readonly RunSource[], options: RunTarOptions = {}): Readable {
  const out = new PassThrough({ highWaterMark: 1 << 20 })
  let current: Readable | undefined
  out.once('close', () => current?.destroy())
  const send = async (chunk: Buffer) => {
    if (chunk.length === 0) return
    if (out.destroyed) throw new Error('the reader went away')
    options.onBytes?.(chunk.length)
    if (out.write(chunk)) return
    // Both listeners go once either fires: one left behind per wait added up to Node's
    // MaxListenersExceededWarning on a restore or drill that waits on a slow reader (issue 38).
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done).off('close', done)
        resolve()
      }
      out.once('drain', done).once('close', done)
    })
  }
  const run = signalOf(options)
  const produce = async () => {
    const writer = new TarWriter()
    for (const source of sources) {
      options.signal?.throwIfAborted()
      if (source.form === 'dump') {
        current = Readable.from(resticLockedStream(target, ['dump', source.id, source.root], run), { objectMode: false })
        await sendWithoutEnd(current, send)
        continue
      }
      current = Readable.from(resticLockedStream(target, ['dump', '--archive', 'tar', source.id, source.root], run), { objectMode: false })
      await forEachTarEntry(current, async (header, entry) => {
        const type = header.type === 'file' || header.type === 'directory' || header.type === 'symlink' ? header.type : undefined
        const name = entryName(header.name, source.root, source.name)
        if (!type || !name) return
        const size = type === 'file' ? (header.size ?? 0) : 0
        const tarHeader: TarHeader = {
          name,
          type,
          mode: (header.mode ?? 0o644) & 0o7777,
          mtime: header.mtime ?? new Date(0),
          ...(header.linkname ? { linkname: header.linkname } : {}),
        }
        writer.header(tarHeader, size)
        writer.flush()
        for (const chunk of writer.take()) await send(Buffer.from(chunk))
        for await (const chunk of entry) await send(chunk as Buffer)
        writer.pad(size)
        writer.flush()
        for (const chunk of writer.take()) await send(Buffer.from(chunk))
      })
    }
    writer.end()
    for (const chunk of writer.take()) await send(Buffer.from(chunk))
  }
  produce().then(
    () => out.end(),
    (err: Error) => out.destroy(options.signal?.aborted ? (options.signal.reason as Error) : err),
  )
  return out
}

const signalOf = (options: RunTarOptions) => (options.signal ? { signal: options.signal } : {})

/** Passes `stream` on but its last `tarEnd` bytes (the inner tar's end blocks). */
async function sendWithoutEnd(stream: Readable, send: (chunk: Buffer) => Promise<void>): Promise<void> {
  let held = Buffer.alloc(0)
  for await (const chunk of stream) {
    const joined = held.length ? Buffer.concat([held, chunk as Buffer]) : (chunk as Buffer)
    const cut = Math.max(0, joined.length - tarEnd)
    await send(joined.subarray(0, cut))
    held = Buffer.from(joined.subarray(cut))
  }
}
