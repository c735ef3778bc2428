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
import { PassThrough, type Readable } from 'node:stream'
import { forEachTarEntry } from '../../archive/forEachTarEntry.js'
import { TarWriter, type TarHeader } from '../../tar/tarWriter.js'
import { jsonObjectsAt } from './jsonObjects.js'
import { resticStream, type ResticTarget } from './resticProcess.js'
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

/** The bytes a folder snapshot takes in the run's tar (headers, bodies, padding), from its listing. */
export async function tarSizeOfTree(target: ResticTarget, source: RunSource, signal?: AbortSignal): Promise<number> {
  // `[{"matches":[{node},…],…}]`: the nodes are the objects at depth 3, parsed as they come.
  const found = resticStream(target, ['find', '--json', '--snapshot', source.id, '*'], signal ? { signal } : {})
  const writer = new TarWriter(64 * 1024)
  let total = 0
  for await (const node of jsonObjectsAt<FoundNode>(found, 3)) {
    const type = tarTypes[node.type as keyof typeof tarTypes]
    const name = entryName(node.path, source.root, source.name)
    if (!type || !name) continue
    const size = type === 'file' ? (node.size ?? 0) : 0
    total += headerSize(writer, { name, type, mode: 0o644, mtime: new Date(0), ...(node.linktarget !== undefined && { linkname: node.linktarget }) }, size)
    total += Math.ceil(size / block) * block
  }
  return total
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
    await new Promise<void>((resolve) => {
      out.once('drain', resolve)
      out.once('close', resolve)
    })
  }
  const run = signalOf(options)
  const produce = async () => {
    const writer = new TarWriter()
    for (const source of sources) {
      options.signal?.throwIfAborted()
      if (source.form === 'dump') {
        current = resticStream(target, ['dump', source.id, source.root], run)
        await sendWithoutEnd(current, send)
        continue
      }
      current = resticStream(target, ['dump', '--archive', 'tar', source.id, source.root], run)
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
