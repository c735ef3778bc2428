/**
 * @module tar/tarHeader
 * One tar header block read (ustar, POSIX PAX and old GNU forms, as GNU tar, bsdtar, restic and our own
 * writer produce them): checksum checked, numbers in octal or GNU base-256, names kept as bytes until
 * they are decoded with `byteNames.decodeName` (so a name that is not UTF-8 restores byte-exact). PAX
 * records (`path`, `linkpath`, `size`, `mtime`) and GNU long names (`L`, `K`) override the block's fields.
 */
import { decodeName } from './byteNames.js'

export const tarBlock = 512

/** Entry types by their type flag, with the names tar-stream gave them (readers compare with these). */
const types: Record<string, TarEntryType> = {
  '0': 'file',
  '\0': 'file',
  '1': 'link',
  '2': 'symlink',
  '3': 'character-device',
  '4': 'block-device',
  '5': 'directory',
  '6': 'fifo',
  '7': 'contiguous-file',
  x: 'pax-header',
  g: 'pax-global-header',
  L: 'gnu-long-path',
  K: 'gnu-long-link-path',
}

export type TarEntryType =
  | 'file'
  | 'link'
  | 'symlink'
  | 'character-device'
  | 'block-device'
  | 'directory'
  | 'fifo'
  | 'contiguous-file'
  | 'pax-header'
  | 'pax-global-header'
  | 'gnu-long-path'
  | 'gnu-long-link-path'
  | 'unknown'

/** An entry as the readers of snapshots see it. */
export interface TarEntryHeader {
  /** The entry's path as stored (escaped bytes where it is not UTF-8: `byteNames`). */
  name: string
  type: TarEntryType
  /** Bytes of the entry's body (0 for anything but a file). */
  size: number
  mode: number
  mtime: Date
  /** A link's target (symbolic or hard). */
  linkname?: string
}

/** A header block as stored, names still bytes. */
export interface RawHeader {
  name: Buffer
  linkname: Buffer
  type: TarEntryType
  /** The type flag as a character (for messages about unknown ones). */
  flag: string
  size: number
  mode: number
  mtime: number
}

/** Overrides from PAX records and GNU long names, as bytes (values) until decoded. */
export interface HeaderOverrides {
  path?: Buffer
  linkpath?: Buffer
  size?: number
  mtime?: number
}

export const isZeroBlock = (block: Buffer) => {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false
  return true
}

/** Bytes up to the first NUL of `buf[at, at + length)`. */
const field = (buf: Buffer, at: number, length: number) => {
  const end = buf.indexOf(0, at)
  return buf.subarray(at, end === -1 || end > at + length ? at + length : end)
}

/** A numeric field: GNU base-256 when its first byte has the high bit, else octal digits (spaces and NULs around). */
function number(buf: Buffer, at: number, length: number): number {
  if (buf[at]! & 0x80) {
    let value = buf[at]! & 0x3f
    for (let i = at + 1; i < at + length; i++) value = value * 256 + buf[i]!
    return value
  }
  const text = buf
    .toString('latin1', at, at + length)
    .replace(/\0.*$/s, '')
    .trim()
  if (text === '') return 0
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`a header holds "${text}" where a number belongs`)
  return parseInt(text, 8)
}

/** The archive is not a tar as the readers know it (damaged, not decompressed, or another format). */
export class TarFormatError extends Error {
  override name = 'TarFormatError'
}

/** Parses and checks one 512-byte header block (not a zero block). */
export function parseHeader(block: Buffer): RawHeader {
  const stored = number(block, 148, 8)
  let unsigned = 0
  let signed = 0
  for (let i = 0; i < tarBlock; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : block[i]!
    unsigned += byte
    signed += byte > 127 ? byte - 256 : byte
  }
  if (stored !== unsigned && stored !== signed) {
    throw new TarFormatError('a tar header has a wrong checksum: the archive is damaged, or not a tar (still compressed or encrypted?)')
  }
  const flag = String.fromCharCode(block[156]!)
  const posix = block.toString('latin1', 257, 263) === 'ustar\0'
  let name = field(block, 0, 100)
  // POSIX ustar keeps the first part of a long name in the prefix field; old GNU headers have other fields there.
  const prefix = posix ? field(block, 345, 155) : Buffer.alloc(0)
  if (prefix.length > 0) name = Buffer.concat([prefix, Buffer.from('/'), name])
  return {
    name,
    linkname: field(block, 157, 100),
    type: types[flag] ?? 'unknown',
    flag,
    size: number(block, 124, 12),
    mode: number(block, 100, 8),
    mtime: number(block, 136, 12),
  }
}

/** PAX extended header records (`<length> <key>=<value>\n`), values as bytes. */
export function parsePax(body: Buffer, into: HeaderOverrides = {}): HeaderOverrides {
  let at = 0
  while (at < body.length) {
    const space = body.indexOf(0x20, at)
    if (space === -1) break
    const length = parseInt(body.toString('latin1', at, space), 10)
    if (!Number.isInteger(length) || length <= 0 || at + length > body.length) throw new TarFormatError('a PAX header record has a bad length')
    const record = body.subarray(space + 1, at + length - 1)
    const equals = record.indexOf(0x3d)
    if (equals !== -1) {
      const key = record.toString('latin1', 0, equals)
      const value = record.subarray(equals + 1)
      if (key === 'path') into.path = Buffer.from(value)
      else if (key === 'linkpath') into.linkpath = Buffer.from(value)
      else if (key === 'size') into.size = Number(value.toString('latin1'))
      else if (key === 'mtime') into.mtime = Number(value.toString('latin1'))
    }
    at += length
  }
  return into
}

/** The entry as readers see it: overrides applied, names decoded. */
export function entryHeader(raw: RawHeader, overrides: HeaderOverrides): TarEntryHeader {
  const linkname = overrides.linkpath ?? raw.linkname
  const size = overrides.size ?? raw.size
  const name = overrides.path ?? raw.name
  // Old tars mark folders by a trailing slash on a plain file's type: the slash of the name that applies (a
  // PAX path's, not the header field's: Go's archive/tar, restic's, fills a name it cannot store in ustar,
  // one without an ASCII byte, with the entry's folder and a trailing slash, and puts the name in PAX).
  const type = raw.type === 'file' && name.length > 0 && name[name.length - 1] === 0x2f ? 'directory' : raw.type
  return {
    name: decodeName(name),
    type,
    size: type === 'file' || type === 'contiguous-file' ? size : 0,
    mode: raw.mode,
    mtime: new Date(Math.floor((overrides.mtime ?? raw.mtime) * 1000)),
    ...(linkname.length > 0 && { linkname: decodeName(linkname) }),
  }
}

/** The bytes a body of `size` takes up to the next block. */
export const paddingOf = (size: number) => (tarBlock - (size % tarBlock)) % tarBlock
