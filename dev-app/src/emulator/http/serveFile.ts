/**
 * @module emulator/http/serveFile
 * Streams a file from disk with ETag, conditional GET and single byte-range support (RFC 9110).
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { pipeline } from 'node:stream/promises'

export interface ServeFileArgs {
  req: IncomingMessage
  res: ServerResponse
  filePath: string
  contentType: string
  headers?: Record<string, string>
}

/** Parses one `bytes=` range against `size`; `null` = unsatisfiable, `undefined` = ignore (serve whole). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | undefined {
  if (!header) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  // Multiple ranges or another unit: a server may answer with the whole representation.
  if (!match) return undefined
  const [, from = '', to = ''] = match
  if (from === '' && to === '') return undefined
  let start: number
  let end: number
  if (from === '') {
    const suffix = Number(to)
    if (suffix === 0) return null
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(from)
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
    if (to !== '' && Number(to) < start) return undefined
  }
  if (start >= size || size === 0) return null
  return { start, end }
}

/** Answers 200, 206, 304 or 416; HEAD gets the headers only. Resolves once the body is sent. */
export async function serveFile({ req, res, filePath, contentType, headers = {} }: ServeFileArgs): Promise<void> {
  const info = await stat(filePath)
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`
  const common: Record<string, string> = {
    ...headers,
    'Accept-Ranges': 'bytes',
    'Content-Type': contentType,
    ETag: etag,
    'Last-Modified': info.mtime.toUTCString(),
  }
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, common)
    res.end()
    return
  }
  // If-Range with a different validator means "send everything".
  const ifRange = req.headers['if-range']
  const range = ifRange && ifRange !== etag ? undefined : parseRange(req.headers.range, info.size)
  if (range === null) {
    res.writeHead(416, { ...common, 'Content-Range': `bytes */${info.size}`, 'Content-Length': '0' })
    res.end()
    return
  }
  const status = range ? 206 : 200
  const start = range?.start ?? 0
  const end = range?.end ?? info.size - 1
  res.writeHead(status, {
    ...common,
    'Content-Length': String(info.size === 0 ? 0 : end - start + 1),
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
  })
  if (req.method === 'HEAD' || info.size === 0) {
    res.end()
    return
  }
  await pipeline(createReadStream(filePath, { start, end }), res)
}
