/**
 * @module validation/contentSniff
 * What the first bytes of a file are, whatever its name and declared type say: markup (HTML, XML, SVG;
 * in UTF-8 or UTF-16, with or without a byte-order mark) or a binary format `file-type` recognises. One
 * rule on every upload path (tus-auth's `head`, files sent through the CMS, client uploads read back):
 * - SVG or XML content: 400, like an SVG or XML name or type (they need the server's own checks);
 * - HTML content: 415, a restricted type (a pull zone would serve it to browsers);
 * - declared as an image or a video: the content must sniff as that same kind of file (another format,
 *   or nothing known, is 415: plain text declared `video/mp4` is not a video);
 * - other declared types: only a recognised format that contradicts the declaration is refused.
 */
import { fileTypeFromBuffer } from 'file-type'

import { HttpError } from '../errors.js'
import { mimeEssence } from './fileRules.js'

/** Bytes worth sniffing: enough for file-type's deepest probe and any markup preamble. */
export const SNIFF_BYTES = 8192

export type Markup = 'html' | 'svg' | 'xml'

/** Container names that file-type and browsers spell differently for the same bytes. */
const SAME_CONTAINER: Record<string, string> = {
  'audio/mp4': 'video/mp4',
  'image/heif': 'image/heic',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/vnd.microsoft.icon': 'image/x-icon',
  'video/avi': 'video/vnd.avi',
  'video/msvideo': 'video/vnd.avi',
  'video/quicktime': 'video/mp4',
  'video/x-m4v': 'video/mp4',
  'video/x-matroska': 'video/webm',
  'video/x-ms-wmv': 'video/x-ms-asf',
  'video/x-msvideo': 'video/vnd.avi',
}
const family = (mime: string): string => SAME_CONTAINER[mime] ?? mime

/** The text at the start of the bytes, decoded as UTF-16 when the bytes say so (BOM or zero bytes). */
function leadingText(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024))
  const utf16le = (head[0] === 0xff && head[1] === 0xfe) || (head.length > 3 && head[1] === 0 && head[3] === 0 && head[0] !== 0)
  const utf16be = (head[0] === 0xfe && head[1] === 0xff) || (head.length > 3 && head[0] === 0 && head[2] === 0 && head[1] !== 0)
  let text: string
  if (utf16le) text = head.toString('utf16le')
  else if (utf16be) text = Buffer.from(head).swap16().toString('utf16le')
  else text = head.toString('utf8')
  return text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase()
}

/** The tags WHATWG's MIME sniffing treats as HTML (followed by a space or `>`), plus the doctype. */
const HTML_START = /^<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|object|embed|meta|link|img|svg:svg)[\s>/]/
const HTML_COMMENT = /^<!--/

/** Markup at the start of the bytes, or undefined. */
export function sniffMarkup(bytes: Uint8Array): Markup | undefined {
  const text = leadingText(bytes)
  if (text.startsWith('<svg') || text.startsWith('<!doctype svg')) return 'svg'
  if (text.startsWith('<?xml')) return text.includes('<svg') ? 'svg' : 'xml'
  if (HTML_START.test(text) || HTML_COMMENT.test(text)) return 'html'
  return undefined
}

/**
 * Throws the rule's status when the content contradicts the declared type (module comment). `bytes`
 * are the first bytes of the file; empty bytes (nothing to read) pass.
 */
export async function assertContentMatches(declaredMimeType: string, bytes: Uint8Array): Promise<void> {
  if (bytes.byteLength === 0) return
  const declared = mimeEssence(declaredMimeType)
  const markup = sniffMarkup(bytes)
  if (markup === 'svg' || markup === 'xml') throw new HttpError(400, 'SVG and XML files cannot be uploaded: the file content is SVG or XML.')
  if (markup === 'html') throw new HttpError(415, `The file content is HTML, which is restricted (declared as ${declared}).`)
  const detected = await fileTypeFromBuffer(bytes.subarray(0, SNIFF_BYTES))
  if (detected) {
    if (family(detected.mime) !== family(declared)) {
      throw new HttpError(415, `The file content (${detected.mime}) does not match the declared type ${declared}.`)
    }
    return
  }
  if (declared.startsWith('image/') || declared.startsWith('video/')) {
    throw new HttpError(415, `The file content is not a recognisable ${declared.split('/')[0]} file (declared as ${declared}).`)
  }
}
