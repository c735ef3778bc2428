/**
 * @module test/support/sourceSuiteProbes
 * What the source suite (`runSourceSuite`) looks with: this process's live children (from `/proc`), a
 * bounded wait for a check to pass, a tar stream read into memory, and a source that cancels itself at
 * its first byte read.
 */
import { readdir, readFile } from 'node:fs/promises'
import { Readable, Transform } from 'node:stream'
import tar from 'tar-stream'
import { recordEntryName } from '../../src/tar/snapshotRecord.js'
import type { Source, SourceEntry } from '../../src/sources/types.js'

export interface ArchivedEntry {
  name: string
  type: string
  size: number
  data: Buffer
}

/** Pids and command names of this process's live children. */
export async function children(): Promise<{ pid: number; command: string }[]> {
  const found: { pid: number; command: string }[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses: split after the last ')'.
    const close = stat.lastIndexOf(')')
    if (close < 0) continue
    const [state, ppid] = stat.slice(close + 2).split(' ')
    if (Number(ppid) === process.pid && state !== 'Z') found.push({ pid: Number(name), command: stat.slice(stat.indexOf('(') + 1, close) })
  }
  return found
}

/** Waits (bounded) until `check` passes: a killed child or a removed file may lag the rejection by a tick. */
export async function eventually(check: () => Promise<void>, attempts = 100): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await check()
    } catch (err) {
      if (attempt >= attempts) throw err
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

/**
 * Reads a tar stream into memory (fixtures are a few MB): the sources' entries, without the record the
 * archive writer appends (`.backup-daemon/record.json`, not a source's entry; `withRecord` keeps it).
 */
export async function readArchive(archive: Readable, { withRecord = false } = {}): Promise<ArchivedEntry[]> {
  const extract = tar.extract()
  const entries: ArchivedEntry[] = []
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = []
      stream.on('error', reject)
      stream.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer))
      stream.on('end', () => {
        if (withRecord || header.name !== recordEntryName)
          entries.push({ name: header.name, type: header.type ?? 'file', size: header.size ?? 0, data: Buffer.concat(chunks) })
        next()
      })
    })
    extract.on('finish', resolve)
    extract.on('error', reject)
    archive.on('error', (err) => {
      extract.destroy(err)
      reject(err)
    })
  })
  archive.pipe(extract as unknown as NodeJS.WritableStream)
  await done
  return entries
}

/**
 * Every file entry's first byte aborts `controller` (the source is cancelled mid-stream). A small file the
 * source has read already (`data`) is streamed from a copy instead, so its first byte aborts as well.
 */
export function abortOnFirstByte(source: Source, controller: AbortController, reason: Error): Source {
  const tapped = (entry: SourceEntry): SourceEntry => {
    if (entry.type !== 'file' || (!entry.open && !entry.data)) return entry
    const data = entry.data && Buffer.from(entry.data)
    const open = data ? () => Readable.from([data]) : entry.open!.bind(entry)
    return {
      ...entry,
      data: undefined,
      open: (s) => {
        const input = open(s)
        const tap = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            // Outside the stream's own callback, as a cancel from the API arrives.
            if (!controller.signal.aborted) setImmediate(() => controller.abort(reason))
            callback(null, chunk)
          },
        })
        input.on('error', (err) => tap.destroy(err))
        // The archive writer listens on the end of what it pipes this into (as with an fs stream);
        // the tap's own error must not go unhandled.
        tap.on('error', () => {})
        return input.pipe(tap)
      },
    }
  }
  return {
    name: source.name,
    type: source.type,
    async *batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
      for await (const batch of source.batches(signal)) yield batch.map(tapped)
    },
  }
}
