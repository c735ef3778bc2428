/**
 * @module archive/recordSpool
 * The snapshot record's JSON (`tar/snapshotRecord.ts`) written to a temporary file as the files are
 * archived, then added as the tar's last entry: its memory stays flat whatever the number of files (kept
 * in arrays, 200k files held ~49 MiB of heap, measured; the daemon's RSS target is 150 MiB). The file is
 * removed once the entry is written, or when the archive fails or is aborted (`discard`).
 */
import { PassThrough } from 'node:stream'
import type { DigestKind } from '../tar/fileDigest.js'
import type { SnapshotRecord } from '../tar/snapshotRecord.js'
import { spoolToFile, type Spooled } from './spoolToFile.js'

/** Text is handed to the file in pieces of about this many characters. */
const pieceSize = 64 * 1024

export class RecordSpool {
  private readonly text = new PassThrough()
  private readonly spooled: Promise<Spooled>
  private pending = ''
  private empty = true

  constructor(digest: DigestKind, signal: AbortSignal) {
    this.spooled = spoolToFile(this.text, signal)
    // Settled by `finish` or `discard`; a failure in between is theirs to report.
    this.spooled.catch(() => {})
    this.pending = `{"version":1,"digest":${JSON.stringify(digest)},"files":[`
  }

  /** Files archived, in order: their items as the tar writer builds them (`TarWriter.takeRecordedText`). */
  add(text: string): void {
    if (!text) return
    this.pending += this.empty ? text : `,${text}`
    this.empty = false
    if (this.pending.length >= pieceSize) {
      this.text.write(this.pending)
      this.pending = ''
    }
  }

  /** The whole record in its temporary file (the caller adds it to the tar and calls `cleanup`). */
  finish(sources: SnapshotRecord['sources']): Promise<Spooled> {
    this.text.end(`${this.pending}],"sources":${JSON.stringify(sources)}}`)
    this.pending = ''
    return this.spooled
  }

  /** The archive failed or was aborted: the temporary file goes. */
  async discard(): Promise<void> {
    this.text.destroy()
    await this.spooled.then(
      (spooled) => spooled.cleanup(),
      () => {},
    )
  }
}
