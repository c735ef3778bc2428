/**
 * @module archive/recordSpool
 * The snapshot record's JSON (`tar/snapshotRecord.ts`) kept as the files are archived, then added as the
 * tar's last entry. It stays in memory up to `memoryCap` bytes (a record of 20k tiny files is ~0.7 MiB), and past
 * that goes to a temporary file, so memory stays flat whatever the number of files (kept in arrays, 200k
 * files held ~49 MiB of heap, measured; the daemon's RSS target is 150 MiB). The temporary file of a small
 * record (create, write, stat, read back, remove) cost ~5 ms of a 0.24 s backup of 20k tiny files
 * (bench/daemon-record-cost). A file is removed once the entry is written, or when the archive fails or is
 * aborted (`discard`).
 */
import { PassThrough, Readable } from 'node:stream'
import type { DigestKind } from '../tar/fileDigest.js'
import type { SnapshotRecord } from '../tar/snapshotRecord.js'
import { spoolToFile, type Spooled } from './spoolToFile.js'

/** Past this many bytes the record goes to a temporary file. */
export const memoryCap = 4 * 1024 * 1024
const comma = Buffer.from(',')

/** The whole record, ready to be added to the tar. */
export type SpooledRecord = Pick<Spooled, 'size' | 'open' | 'cleanup'>

export class RecordSpool {
  /** The record's bytes so far while it is in memory, and their size. */
  private pieces: Buffer[] = []
  private held = 0
  /** Once past `memoryCap`: the temporary file the bytes go to. */
  private file: { bytes: PassThrough; spooled: Promise<Spooled> } | undefined
  private empty = true

  constructor(
    digest: DigestKind,
    private readonly signal: AbortSignal,
  ) {
    this.put(Buffer.from(`{"version":1,"digest":${JSON.stringify(digest)},"files":[`))
  }

  /** Files archived, in order: their items as the tar writer builds them (`TarWriter.takeRecorded`), comma-joined. */
  add(items: Uint8Array): void {
    if (items.byteLength === 0) return
    if (!this.empty) this.put(comma)
    this.empty = false
    this.put(Buffer.from(items.buffer, items.byteOffset, items.byteLength))
  }

  /** The whole record (the caller adds it to the tar and calls `cleanup`). */
  async finish(sources: SnapshotRecord['sources']): Promise<SpooledRecord> {
    this.put(Buffer.from(`],"sources":${JSON.stringify(sources)}}`))
    if (this.file) {
      this.file.bytes.end()
      return this.file.spooled
    }
    const { pieces, held } = this
    this.pieces = []
    return { size: held, open: () => Readable.from(pieces), cleanup: async () => {} }
  }

  /** The archive failed or was aborted: the temporary file (if any) goes. */
  async discard(): Promise<void> {
    this.pieces = []
    if (!this.file) return
    this.file.bytes.destroy()
    await this.file.spooled.then(
      (spooled) => spooled.cleanup(),
      () => {},
    )
  }

  private put(piece: Buffer): void {
    if (this.file) {
      this.file.bytes.write(piece)
      return
    }
    this.pieces.push(piece)
    this.held += piece.length
    if (this.held > memoryCap) this.spill()
  }

  /** Past the cap: what is held goes to a temporary file, and so does the rest. */
  private spill(): void {
    const bytes = new PassThrough()
    const spooled = spoolToFile(bytes, this.signal)
    // Settled by `finish` or `discard`; a failure in between is theirs to report.
    spooled.catch(() => {})
    for (const piece of this.pieces) bytes.write(piece)
    this.pieces = []
    this.held = 0
    this.file = { bytes, spooled }
  }
}
