/**
 * @module storages/webdav/parseMultistatus
 * The entries of a PROPFIND answer (RFC 4918 `multistatus`), whatever namespace prefixes the server
 * picked (`D:`, `d:`, none): href (decoded path), collection or not, size and modification time.
 */
import parser from 'fast-xml-parser'

export interface DavEntry {
  /** The decoded URL path of the resource, as the server wrote it (absolute path or full URL). */
  path: string
  collection: boolean
  size: number
  modified: Date
}

type Node = Record<string, unknown>

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value])

export function parseMultistatus(xml: string, base: string): DavEntry[] {
  const doc = parser.parse(xml, { ignoreNameSpace: true, ignoreAttributes: true, parseNodeValue: false, parseTrueNumberOnly: false, trimValues: true }) as Node
  const multistatus = doc.multistatus as Node | undefined
  if (!multistatus) throw new Error('WebDAV: the PROPFIND answer is not a multistatus document')
  const entries: DavEntry[] = []
  for (const response of list(multistatus.response as Node | Node[])) {
    const href = String(response.href ?? '')
    if (!href) continue
    // Properties come in propstats by status; only the 200 one holds values.
    const props = list(response.propstat as Node | Node[])
      .filter((p) => !p.status || / 200 /.test(String(p.status)))
      .map((p) => (p.prop ?? {}) as Node)
    const prop = Object.assign({}, ...props) as Node
    const type = prop.resourcetype
    const collection = typeof type === 'object' && type !== null && 'collection' in type
    const modified = prop.getlastmodified ? new Date(String(prop.getlastmodified)) : new Date(0)
    entries.push({
      path: decodeURIComponent(new URL(href, base).pathname),
      collection,
      size: Number(prop.getcontentlength ?? 0) || 0,
      modified: Number.isNaN(modified.getTime()) ? new Date(0) : modified,
    })
  }
  return entries
}
