/**
 * @module archive/spoolToFile
 * Writes a stream of unknown length to a temporary file, so it can be added to a tar whose header
 * needs the size first. The file is removed by `cleanup`.
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

export interface Spooled {
  /** The temporary file (for readers that need random access). */
  path: string
  size: number
  open(): Readable
  cleanup(): Promise<void>
}

export async function spoolToFile(body: Readable, signal: AbortSignal): Promise<Spooled> {
  const dir = await mkdtemp(join(tmpdir(), 'backup-daemon-spool-'))
  const cleanup = () => rm(dir, { recursive: true, force: true })
  const file = join(dir, 'entry')
  try {
    await pipeline(body, createWriteStream(file), { signal })
    const { size } = await stat(file)
    return { path: file, size, open: () => createReadStream(file), cleanup }
  } catch (err) {
    await cleanup()
    throw err
  }
}
