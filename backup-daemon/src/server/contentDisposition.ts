/**
 * @module server/contentDisposition
 * `Content-Disposition: attachment` for a download (RFC 6266): a plain ASCII `filename` fallback with
 * nothing that could break out of the quotes or name a folder, plus `filename*` with the exact UTF-8 name.
 */

export function contentDisposition(name: string): string {
  const base = name.split(/[/\\]/).pop() || 'download'

  const ascii = base.replace(/[^\x20-\x7e]|["\\%;]/g, '_')
  // encodeURIComponent leaves ' ( ) * unescaped; RFC 5987 attr-char does not allow them.
  const encoded = encodeURIComponent(base).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}
