/**
 * @module test/restoreMatrix/support/treeOnDisk
 * Writes a generated tree (`generatedTree`) to disk with Buffer paths, and reads any folder back as a map
 * of entries keyed by their relative path's bytes, to compare a restore with its source: names (byte-exact),
 * bytes, modes (with the setuid, setgid and sticky bits), mtimes (folders too), links (their target bytes),
 * empty folders. Links are read, never followed.
 */
import { createHash } from 'node:crypto'
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import type { Tree, TreeNode } from './generatedTree.js'

const slash = Buffer.from('/')
const join = (dir: Buffer, name: Buffer) => Buffer.concat([dir, slash, name])

/** Writes `tree` as the folder `root` (created; its parent must exist): modes and mtimes set after the contents. */
export function writeTree(root: string | Buffer, tree: Tree): void {
  const top = Buffer.isBuffer(root) ? root : Buffer.from(root)
  mkdirSync(top)
  writeChildren(top, tree.children)
  chmodSync(top, tree.mode)
  utimesSync(top, tree.mtime, tree.mtime)
}

function writeChildren(dir: Buffer, children: TreeNode[]): void {
  for (const node of children) {
    const path = join(dir, node.name)
    if (node.type === 'file') {
      writeFileSync(path, node.data)
      chmodSync(path, node.mode)
      utimesSync(path, node.mtime, node.mtime)
    } else if (node.type === 'symlink') {
      symlinkSync(node.target, path)
    } else {
      mkdirSync(path)
      writeChildren(path, node.children)
      // Its mode and mtime last: writing the children changed the mtime, and a mode without w would stop them.
      chmodSync(path, node.mode)
      utimesSync(path, node.mtime, node.mtime)
    }
  }
}

/** One entry as read back from disk. */
export interface DiskEntry {
  type: 'file' | 'dir' | 'symlink' | 'other'
  /** Permission bits with setuid, setgid and sticky (links: none). */
  mode?: number
  /** Whole seconds (links: none, a restore need not set a link's own time). */
  mtime?: number
  size?: number
  sha256?: string
  /** A link's target, as bytes in latin1 (one character per byte). */
  target?: string
}

/** Entries by relative path, each path's bytes as a latin1 string (one character per byte); `.` is the folder itself. */
export type DiskTree = Map<string, DiskEntry>

export function readTree(root: string | Buffer): DiskTree {
  const out: DiskTree = new Map()
  const top = Buffer.isBuffer(root) ? root : Buffer.from(root)
  const visit = (path: Buffer, relative: string) => {
    const info = lstatSync(path)
    if (info.isSymbolicLink()) {
      out.set(relative, { type: 'symlink', target: readlinkSync(path, { encoding: 'buffer' }).toString('latin1') })
      return
    }
    const common = { mode: info.mode & 0o7777, mtime: Math.floor(info.mtimeMs / 1000) }
    if (info.isFile()) {
      const bytes = readFileSync(path)
      out.set(relative, { type: 'file', ...common, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') })
    } else if (info.isDirectory()) {
      out.set(relative, { type: 'dir', ...common })
      for (const name of readdirSync(path, { encoding: 'buffer' })) {
        visit(join(path, name), relative === '.' ? name.toString('latin1') : `${relative}/${name.toString('latin1')}`)
      }
    } else out.set(relative, { type: 'other' })
  }
  visit(top, '.')
  return out
}

/** A path's bytes shown readably: printable ASCII as is, every other byte as `\xNN`. */
export function showPath(latin1: string): string {
  // A deep path keeps its start and its end (the differing part is usually the last name).
  if (latin1.length > 160) return `${showPath(latin1.slice(0, 40))}…${showPath(latin1.slice(-100))}`
  return Array.from(Buffer.from(latin1, 'latin1'), (byte) =>
    byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`,
  ).join('')
}

export interface CompareOptions {
  /** Leave out the top folder's own mode and mtime (a mirror's or a restore folder's top is not the source's). */
  ignoreTop?: boolean
  /** Compare only names, types, bytes and link targets (objects of a bucket or zone have no mode or mtime). */
  contentOnly?: boolean
  /**
   * The restore clears the set-user-ID and set-group-ID bits, by design (a snapshot is untrusted input: the
   * daemon's restore never makes a set-uid file), and keeps the sticky bit: the source's modes are expected so.
   */
  setIdCleared?: boolean
}

const setIdBits = 0o6000

/** What differs between the source and the restore, one line each (empty: the same), at most `limit` lines. */
export function diffTrees(expected: DiskTree, actual: DiskTree, options: CompareOptions = {}, limit = 200): string[] {
  const lines: string[] = []
  const say = (path: string, what: string) => lines.push(`${showPath(path)}: ${what}`)
  for (const [path, want] of expected) {
    const got = actual.get(path)
    if (!got) {
      say(path, `missing (a ${want.type} in the source)`)
      continue
    }
    if (got.type !== want.type) {
      say(path, `a ${got.type}, the source has a ${want.type}`)
      continue
    }
    if (want.type === 'symlink' && got.target !== want.target) say(path, `link to ${showPath(got.target!)}, the source links to ${showPath(want.target!)}`)
    if (want.type === 'file' && (got.size !== want.size || got.sha256 !== want.sha256))
      say(path, `${got.size} bytes (sha256 ${got.sha256?.slice(0, 12)}), the source ${want.size} (${want.sha256?.slice(0, 12)})`)
    if (options.contentOnly || (options.ignoreTop && path === '.') || want.type === 'symlink') continue
    const mode = options.setIdCleared && want.mode !== undefined ? want.mode & ~setIdBits : want.mode
    if (got.mode !== mode)
      say(
        path,
        `mode ${got.mode?.toString(8)}, the source ${want.mode?.toString(8)}${mode === want.mode ? '' : ` (${mode?.toString(8)} expected: set-id bits cleared)`}`,
      )
    if (got.mtime !== want.mtime) say(path, `mtime ${isoOf(got.mtime)}, the source ${isoOf(want.mtime)}`)
  }
  for (const [path, got] of actual) if (!expected.has(path)) say(path, `restored (a ${got.type}) but not in the source`)
  return lines.length > limit ? [...lines.slice(0, limit), `… and ${lines.length - limit} more`] : lines
}

const isoOf = (seconds: number | undefined) => (seconds === undefined ? '?' : new Date(seconds * 1000).toISOString())
