/**
 * @module sources/local/tarWorker/treeTar
 * A local folder's tar bytes, built synchronously in steps of about one chunk (256 KiB): the walk
 * (`sources/local/localWalk.ts`), small files' bytes, large files read in 256 KiB reads, headers and paddings
 * (`tar/tarWriter.ts`). It runs in the tar worker (`tarWorkerMain.ts`) or, when no worker can start,
 * in the main thread between turns of the event loop. No end-of-archive blocks: the archive writer adds
 * them after the last source.
 */
import { closeSync, readSync } from 'node:fs'
import { excludeMatcher } from '../../support/excludeMatcher.js'
import { walkTree, type Walked } from '../localWalk.js'
import type { SourceContext } from '../../types.js'
import type { DigestKind } from '../../../tar/fileDigest.js'
import { TarWriter } from '../../../tar/tarWriter.js'

export interface TreeTarOptions {
  root: string
  name: string
  exclude: string[]
  top: { mode: number; mtime: Date }
  log: SourceContext['log']
  /** Throws to stop (an abort); called before every entry and every read of a large file. */
  check?(): void
  /** Record every file's size and digest (`tar/snapshotRecord.ts`), handed over in each step's `recorded`. */
  record?: DigestKind
}

/** A file whose length changed between its fstat and its read (cut or zero-padded to `announced`). */
export interface ChangedFile {
  name: string
  announced: number
  read: number
}

/** What one step built, and what it read on the way. */
export interface TreeTarStep {
  chunks: Buffer[]
  /** Files whose content was read whole in this step (a large file counts when its last byte is read). */
  files: number
  /** Bytes of file content read in this step. */
  bytes: number
  /** The last file read from, archive name. */
  current: string | undefined
  changed: ChangedFile[]
  /** Files finished in this step, with their digests (when recording): the record's JSON items, comma-joined (empty for none). */
  recorded: Uint8Array
  done: boolean
}

const noItems = new Uint8Array(0)

/** Reads of a large file (as the stream of the in-thread path: 1 MiB ones raised peak RSS, measured). */
const readSize = 256 * 1024

export class TreeTar {
  readonly tar: TarWriter
  private readonly walk: Generator<Walked, void, void>
  /** The large file being copied: its descriptor (ours), announced size and bytes copied so far. */
  private large: { fd: number; name: string; size: number; seen: number } | undefined
  private finished = false

  constructor(private readonly options: TreeTarOptions) {
    this.tar = new TarWriter(undefined, options.record)
    const excluded = options.exclude.length > 0 ? excludeMatcher(options.exclude) : undefined
    this.walk = walkTree({ root: options.root, name: options.name, top: options.top, excluded, log: options.log, check: options.check })
  }

  /** Builds until at least `budget` bytes of chunks are ready or the tree ends. */
  step(budget = 256 * 1024): TreeTarStep {
    const out: TreeTarStep = { chunks: [], files: 0, bytes: 0, current: undefined, changed: [], recorded: noItems, done: false }
    const tar = this.tar
    while (tar.pending < budget) {
      if (this.large) {
        this.copyLarge(out)
        continue
      }
      const next = this.walk.next()
      if (next.done) {
        this.finished = true
        out.done = true
        tar.stopRecording()
        tar.flush()
        break
      }
      const { entry, fd } = next.value
      if (fd !== undefined) {
        // Ours from here: closed when copied, or by `close`.
        this.large = { fd, name: entry.name, size: entry.size, seen: 0 }
        tar.header(entry, entry.size)
        continue
      }
      const data = entry.data
      if (!data) {
        tar.entry(entry)
        continue
      }
      out.files++
      out.bytes += data.length
      out.current = entry.name
      if (data.length === entry.size) {
        tar.entry(entry, data)
      } else {
        const size = entry.size ?? 0
        out.changed.push({ name: entry.name, announced: size, read: data.length })
        tar.entry(entry, data.length > size ? data.subarray(0, size) : Buffer.concat([data, Buffer.alloc(size - data.length)]))
      }
    }
    out.chunks = tar.take()
    out.recorded = tar.takeRecorded()
    return out
  }

  /** One read of the large file into its own buffer (handed on by the tar writer without a copy), or its end. */
  private copyLarge(out: TreeTarStep): void {
    const file = this.large!
    this.options.check?.()
    out.current = file.name
    const room = file.size - file.seen
    if (room > 0) {
      const buffer = Buffer.allocUnsafe(Math.min(readSize, room))
      const n = readFully(file.fd, buffer)
      if (n > 0) {
        this.tar.write(n === buffer.length ? buffer : buffer.subarray(0, n))
        file.seen += n
        out.bytes += n
      }
      if (n === buffer.length) return
    } else if (readFully(file.fd, Buffer.allocUnsafe(1)) === 1) {
      // One byte past the announced size: the file grew, its copy is cut there.
      out.changed.push({ name: file.name, announced: file.size, read: file.size + 1 })
    }
    if (file.seen < file.size) {
      out.changed.push({ name: file.name, announced: file.size, read: file.seen })
      for (let missing = file.size - file.seen; missing > 0; missing -= 64 * 1024) this.tar.write(Buffer.alloc(Math.min(missing, 64 * 1024)))
    }
    this.tar.pad(file.size)
    out.files++
    this.large = undefined
    closeSync(file.fd)
  }

  get done(): boolean {
    return this.finished
  }

  /** Closes every descriptor still open (the large file being copied, the folders of the walk). */
  close(): void {
    if (this.large) {
      const { fd } = this.large
      this.large = undefined
      closeSync(fd)
    }
    this.walk.return()
  }
}

/** Fills `buffer` from the file's position; fewer bytes only at its end. */
function readFully(fd: number, buffer: Buffer): number {
  let filled = 0
  while (filled < buffer.length) {
    const n = readSync(fd, buffer, filled, buffer.length - filled, null)
    if (n === 0) break
    filled += n
  }
  return filled
}
