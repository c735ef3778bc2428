/**
 * @module tar/byteNames
 * File names as the daemon carries them: a Linux name is any bytes but `/` and NUL, not necessarily UTF-8,
 * while Node's fs gives and takes names as UTF-8 strings (an invalid byte read as a string comes back as
 * U+FFFD, and that name can then be neither opened nor restored). So names are decoded the way Python's
 * `surrogateescape` does it: valid UTF-8 as it is, each byte of an invalid sequence as the lone surrogate
 * U+DC80..U+DCFF (`0xDC00 + byte`). Such a string round-trips to the very bytes (`encodeName`), survives
 * `JSON.stringify`/`JSON.parse` (lone surrogates are escaped as `\udcXX`), and a name that is valid UTF-8
 * (nearly all of them) is the same string either way: the fast paths below cost a scan.
 *
 * Where a name meets the file system, `fsName` gives what fs takes: the string itself, or a Buffer of the
 * bytes when it carries escaped bytes. Names are read with `readdir(..., { encoding: 'buffer' })` and
 * `decodeName`; the tar writer encodes them with `encodeName`, the tar reader decodes with `decodeName`.
 */

/** Whether `text` holds an escaped byte (a lone surrogate of U+DC80..U+DCFF). */
export function hasEscapedBytes(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdfff) {
      // A high surrogate followed by a low one is a real character (outside the BMP).
      if (c <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1)
        if (next >= 0xdc00 && next <= 0xdfff) {
          i++
          continue
        }
      }
      return true
    }
  }
  return false
}

/** The name's bytes: UTF-8, with each escaped byte (a lone U+DC80..U+DCFF) as that byte. */
export function encodeName(text: string): Buffer {
  if (!hasEscapedBytes(text)) return Buffer.from(text, 'utf8')
  const out: number[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const next = text.charCodeAt(i + 1)
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      // A pair: one character outside the BMP, four UTF-8 bytes.
      const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
      out.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f))
      i++
    } else if (c >= 0xdc80 && c <= 0xdcff) {
      out.push(c - 0xdc00)
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate no decoded name holds: written as U+FFFD, as Buffer.from would.
      out.push(0xef, 0xbf, 0xbd)
    } else if (c < 0x80) {
      out.push(c)
    } else if (c < 0x800) {
      out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f))
    } else {
      out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f))
    }
  }
  return Buffer.from(out)
}

/** `bytes` as a name string: UTF-8 where valid, each byte of an invalid sequence escaped (U+DC80..U+DCFF). */
export function decodeName(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  const text = buffer.toString('utf8')
  // U+FFFD marks an invalid sequence, or is in the name itself (EF BF BD): decoded by hand then.
  if (!text.includes('\ufffd')) return text
  let out = ''
  let i = 0
  while (i < buffer.length) {
    const length = sequenceLength(buffer, i)
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + buffer[i]!)
      i++
    } else {
      out += buffer.toString('utf8', i, i + length)
      i += length
    }
  }
  return out
}

/** Length of the valid UTF-8 sequence starting at `i` (1 to 4), or 0 when the byte there starts none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!
  if (b0 < 0x80) return 1
  const cont = (at: number) => at < bytes.length && (bytes[at]! & 0xc0) === 0x80
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(i + 1) ? 2 : 0
  if (b0 >= 0xe0 && b0 <= 0xef) {
    if (!cont(i + 1) || !cont(i + 2)) return 0
    const b1 = bytes[i + 1]!
    // Overlong (E0 80..9F) and surrogates (ED A0..BF) are invalid.
    if ((b0 === 0xe0 && b1 < 0xa0) || (b0 === 0xed && b1 >= 0xa0)) return 0
    return 3
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0
    const b1 = bytes[i + 1]!
    if ((b0 === 0xf0 && b1 < 0x90) || (b0 === 0xf4 && b1 >= 0x90)) return 0
    return 4
  }
  return 0
}

/** What fs takes for the name or path `text`: the string itself, or its bytes when it holds escaped bytes. */
export function fsName(text: string): string | Buffer {
  return hasEscapedBytes(text) ? encodeName(text) : text
}

/** Byte length of the name as stored (tar fields and PAX lengths count bytes). */
export function nameByteLength(text: string): number {
  return hasEscapedBytes(text) ? encodeName(text).length : Buffer.byteLength(text, 'utf8')
}
