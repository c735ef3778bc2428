/**
 * @module snapshot/extractTo
 * Unpacks a tar stream into a folder. Every entry must stay inside it: absolute names, `..` steps, hard
 * links, and entries reached through a symbolic link that leads outside are refused (the restore stops
 * with an error naming the entry). Symbolic links themselves are restored as they were archived (the
 * `local` source stores links to anywhere without following them), but nothing is ever written through
 * one: an existing link at a file's path is replaced, never followed. Existing files are not replaced
 * unless `overwrite` is set.
 */
import { createWriteStream } from 'node:fs'
import { lstat, mkdir, realpath, rm, symlink, utimes } from 'node:fs/promises'
import { dirname, isAbsolute, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { forEachTarEntry } from './forEachTarEntry.js'

export interface ExtractOptions {
  /** Replace files that exist. @default false */
  overwrite?: boolean
  signal?: AbortSignal
}

export interface ExtractResult {
  files: number
  directories: number
  links: number
  bytes: number
}

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep)

class EscapeError extends Error {
  constructor(name: string, root: string, why: string) {
    super(`refusing archive entry "${name}": ${why} (it would escape ${root})`)
  }
}

export async function extractTo(archive: Readable, dir: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  await mkdir(dir, { recursive: true })
  const root = await realpath(dir)
  const result: ExtractResult = { files: 0, directories: 0, links: 0, bytes: 0 }

  const target = (name: string): string => {
    const clean = name.replace(/\/+$/, '')
    if (!clean || isAbsolute(clean) || clean.includes('\0') || clean.includes('\\') || clean.split('/').includes('..')) {
      throw new EscapeError(name, root, 'absolute or with ".."')
    }
    const path = resolve(root, clean)
    if (!inside(root, path)) throw new EscapeError(name, root, 'outside the folder')
    return path
  }
  /** Creates the parent folder and checks that, links resolved, it is still inside the root. */
  const parentOf = async (name: string, path: string) => {
    await mkdir(dirname(path), { recursive: true })
    if (!inside(root, await realpath(dirname(path)))) throw new EscapeError(name, root, 'its folder is a link leading outside')
  }

  /** With `overwrite`, a link (or file) in the way is removed first, so the write cannot follow it. */
  const clear = async (path: string) => {
    const existing = await lstat(path).catch(() => undefined)
    if (existing && options.overwrite && !existing.isDirectory()) await rm(path, { force: true })
  }

  await forEachTarEntry(archive, async (header, stream) => {
    if (header.type === 'directory' && /^(\.\/?)+$/.test(header.name)) return // `tar -C dir .` names the root itself `./`
    const path = target(header.name)
    const mtime = header.mtime ?? new Date()
    if (header.type === 'directory') {
      await parentOf(header.name, path)
      await mkdir(path, { recursive: true, mode: (header.mode ?? 0o755) & 0o777 })
      result.directories++
    } else if (header.type === 'file' || header.type === 'contiguous-file') {
      await parentOf(header.name, path)
      await clear(path)
      const out = createWriteStream(path, { flags: options.overwrite ? 'w' : 'wx', mode: (header.mode ?? 0o644) & 0o777 })
      await pipeline(stream, out, options.signal ? { signal: options.signal } : {})
      await utimes(path, mtime, mtime)
      result.files++
      result.bytes += header.size ?? 0
    } else if (header.type === 'symlink') {
      const link = header.linkname ?? ''
      await parentOf(header.name, path)
      await clear(path)
      await symlink(link, path)
      result.links++
    } else {
      throw new EscapeError(header.name, root, `entries of type ${header.type} are not restored`)
    }
  })
  return result
}
