/**
 * @module emulator/http/zoneFileType
 * How a stored file is served to a browser (pull zone, presigned S3 GET, storage API): Content-Type by
 * extension, as a pull zone sets it, except for types a browser would run as a page on the host's origin
 * (HTML, XHTML, SVG, XML, JavaScript). Those go out as `application/octet-stream` with
 * `Content-Disposition: attachment` (a download, never a page) unless `pullZone.inlineActiveContent`
 * asks for their own type; then a sandboxing CSP keeps scripts from running. `X-Content-Type-Options:
 * nosniff` is on every answer of the emulator (startEmulator), so no browser guesses a type either.
 */
import { contentTypeOf } from './contentTypeOf.js'

/** CSP for active content served inline: no scripts, no plugins, an opaque origin. */
export const ACTIVE_CONTENT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

/** Types a browser renders as a document able to run script. */
export function isActiveContentType(type: string): boolean {
  const essence = type.split(';', 1)[0]!.trim().toLowerCase()
  return (
    essence === 'text/html' ||
    essence === 'application/xhtml+xml' ||
    essence === 'image/svg+xml' ||
    essence === 'application/xml' ||
    essence === 'text/xml' ||
    essence.endsWith('+xml') ||
    essence === 'application/javascript' ||
    essence === 'text/javascript'
  )
}

/** Content-Type and extra headers of a zone file. */
export function zoneFileType(relativePath: string, inlineActiveContent: boolean): { contentType: string; headers: Record<string, string> } {
  const contentType = contentTypeOf(relativePath)
  if (!isActiveContentType(contentType)) return { contentType, headers: {} }
  if (inlineActiveContent) return { contentType, headers: { 'Content-Security-Policy': ACTIVE_CONTENT_CSP } }
  return { contentType: 'application/octet-stream', headers: { 'Content-Disposition': 'attachment', 'Content-Security-Policy': ACTIVE_CONTENT_CSP } }
}
