/**
 * @module test/compat/support/originalSnapshots
 * Writes snapshots the way the original service (snapr) lays them out, with the same tools it runs:
 * `tar -chf A -C <sources> .` (through `pigz`, `zstd -T0` or `xz -T0`), `zip -r A .` in the sources
 * folder, `openssl enc -<cipher> -salt -pbkdf2 -pass env:...`, and `split -a 3 -b <n>` into the
 * wrapper folder `<A>.parts-<count>-<total>/<A>.part-aaa`. Names are `<job>-YYYYMMDD-HHMMSS.<ext>[.enc]`.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)

export type OriginalCompression = 'tar' | 'tar.gz' | 'tar.zst' | 'tar.xz' | 'zip'

export interface OriginalSnapshot {
  /** The set ID / file name (`legacy-20260101-030000.tar.gz`). */
  name: string
  /** The whole archive's bytes (before splitting). */
  bytes: Buffer
  /** Folder it was written to. */
  dir: string
  /** Part file names in order (split sets only). */
  parts: string[]
  /** The wrapper folder's name (split sets only). */
  wrapper?: string
}

export interface WriteOriginalOptions {
  /** The storage's `path`. */
  store: string
  job: string
  at: Date
  compression: OriginalCompression
  /** The folder archived as `.` (holds `local_1/`, `sqlite_1/`, ...). */
  sources: string
  encryption?: { password: string; cipher?: string }
  /** `split.chunkSize` in bytes. */
  chunkSize?: number
  /** @default true */
  includeJobName?: boolean
}

const stamp = (at: Date) => at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)

const programs: Record<Exclude<OriginalCompression, 'zip'>, string | undefined> = {
  tar: undefined,
  'tar.gz': 'pigz',
  'tar.zst': 'zstd -T0',
  'tar.xz': 'xz -T0',
}

export async function writeOriginal(options: WriteOriginalOptions): Promise<OriginalSnapshot> {
  const work = await mkdtemp(join(tmpdir(), 'snapr-like-'))
  try {
    let name = `${options.job}-${stamp(options.at)}.${options.compression}`
    let archive = join(work, name)
    if (options.compression === 'zip') {
      await exec('zip', ['-q', '-r', archive, '.'], { cwd: options.sources })
    } else {
      const program = programs[options.compression]
      await exec('tar', [...(program ? [`--use-compress-program=${program}`] : []), '-chf', archive, '-C', options.sources, '.'])
    }
    if (options.encryption) {
      const cipher = options.encryption.cipher ?? 'aes-256-cbc'
      await exec('openssl', ['enc', `-${cipher}`, '-salt', '-pbkdf2', '-in', archive, '-out', `${archive}.enc`, '-pass', 'env:SNAPR_ENC_PASS'], {
        env: { ...process.env, SNAPR_ENC_PASS: options.encryption.password },
      })
      await rm(archive)
      archive += '.enc'
      name += '.enc'
    }
    const dir = options.includeJobName === false ? options.store : join(options.store, options.job)
    await mkdir(dir, { recursive: true })
    const bytes = await readFile(archive)
    const { size } = await stat(archive)
    if (options.chunkSize && size > options.chunkSize) {
      const pieces = join(work, 'pieces')
      await mkdir(pieces)
      await exec('split', ['-a', '3', '-b', String(options.chunkSize), archive, join(pieces, `${name}.part-`)])
      const parts = (await readdir(pieces)).sort()
      const wrapper = `${name}.parts-${parts.length}-${size}`
      await mkdir(join(dir, wrapper))
      for (const part of parts) await copyFile(join(pieces, part), join(dir, wrapper, part))
      return { name, bytes, dir, parts, wrapper }
    }
    await copyFile(archive, join(dir, name))
    return { name, bytes, dir, parts: [] }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}
