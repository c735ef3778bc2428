/**
 * @module test/restoreMatrix/support/craftedSnapshot
 * Snapshots made as an attacker with write access to a storage would make them: tar bytes of any entries
 * (absolute names, `..`, links, hard links), written into a `local` storage's folder with a manifest whose
 * sha256 matches, so the daemon lists them as committed (layout of `src/repository/archives/layout.ts`,
 * manifest of `manifest.ts`: read, not imported, as an attacker would read the format).
 */
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import tar from 'tar-stream'

export interface CraftedEntry {
  name: string
  type?: 'file' | 'directory' | 'symlink' | 'link'
  data?: Buffer | string
  linkname?: string
  mode?: number
}

/** A plain tar of `entries`, in order. */
export async function tarOf(entries: CraftedEntry[]): Promise<Buffer> {
  const pack = tar.pack()
  const done = buffer(pack)
  for (const entry of entries) {
    const data = entry.data === undefined ? undefined : Buffer.from(entry.data)
    const header = {
      name: entry.name,
      type: entry.type ?? 'file',
      mode: entry.mode ?? (entry.type === 'directory' ? 0o755 : 0o644),
      mtime: new Date(1_700_000_000_000),
      ...(entry.linkname !== undefined && { linkname: entry.linkname }),
    }
    const bytes = data ?? Buffer.alloc(0)
    await new Promise<void>((resolve, reject) => pack.entry({ ...header, size: bytes.length }, bytes, (err) => (err ? reject(err) : resolve())))
  }
  pack.finalize()
  return done
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

export interface PlantOptions {
  /** The part's key as the manifest names it (default: the archive's own key `<job>/<name>`). */
  partKey?: string
  /** Bytes whose size and sha256 the manifest gives (default: the archive's). */
  manifestBytes?: Buffer
}

/** Writes `archive` as job `job`'s newest snapshot into the local storage folder `storage`; returns its name. */
export function plantSnapshot(storage: string, job: string, archive: Buffer, options: PlantOptions = {}): string {
  const createdAt = new Date(Date.UTC(2030, 0, 1))
  const name = `${job}-${createdAt.toISOString().replace(/[:.]/g, '-')}.tar`
  const key = `${job}/${name}`
  const described = options.manifestBytes ?? archive
  mkdirSync(join(storage, job), { recursive: true })
  writeFileSync(join(storage, key), archive)
  const manifest = {
    version: 1,
    job,
    name,
    compression: 'tar',
    createdAt: createdAt.toISOString(),
    size: described.length,
    sha256: sha(described),
    chunkSize: null,
    parts: [{ key: options.partKey ?? key, size: described.length, sha256: sha(described) }],
  }
  writeFileSync(join(storage, `${key}.manifest.json`), JSON.stringify(manifest))
  return name
}
