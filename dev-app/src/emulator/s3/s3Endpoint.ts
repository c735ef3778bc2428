/**
 * @module emulator/s3/s3Endpoint
 * The storage's S3-compatible endpoint for browser-direct uploads: `PUT /s3/{zone}/{key}` with a
 * SigV4 presigned query (access key id = zone name, secret = zone password). The object lands in
 * the same zone folder the storage API and the CDN serve. GET/HEAD/DELETE accept presigned URLs too.
 */
import { randomUUID } from 'node:crypto'
import { rm, stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { resolveInside } from '../auth/resolveInside.js'
import type { UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { answerPreflight, corsHeaders } from '../http/cors.js'
import { sendText } from '../http/sendJson.js'
import { serveFile } from '../http/serveFile.js'
import { zoneFileType } from '../http/zoneFileType.js'
import { writeObject } from '../storage/writeObject.js'
import type { WrittenObject } from '../storage/writeObject.js'
import { verifyPresignedRequest } from './verifyPresignedRequest.js'

const PREFIX = '/s3/'
const EXPOSED = ['ETag', 'x-amz-request-id', 'Content-Length', 'Content-Range']

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * Integrity values S3 verifies: `Content-MD5` and the flexible checksums sent as *headers*
 * (`x-amz-checksum-crc32` / `-sha256`). Flexible checksums in a presigned *query* are ignored by AWS
 * S3 (its presigned URLs do not support them) but refused by stricter S3-compatible stores (R2,
 * Garage, SeaweedFS): `strictQueryChecksums` switches to the strict behaviour. AWS SDK v3 presigns a
 * CRC32 of an *empty* body into PutObject URLs unless the client has
 * `requestChecksumCalculation: 'WHEN_REQUIRED'`, which is why this matters.
 * Algorithms not computed here (CRC32C, CRC64NVME, SHA-1) are accepted unchecked.
 * Returns the name of the mismatching value, with `ignored` when only the lenient mode let it pass.
 */
function checksumMismatch(
  req: IncomingMessage,
  query: URLSearchParams,
  object: WrittenObject,
  strictQuery: boolean,
): { name: string; ignored: boolean } | undefined {
  const value = (name: string): { value: string; fromQuery: boolean } | undefined => {
    const header = req.headers[name]
    if (typeof header === 'string') return { value: header, fromQuery: false }
    for (const [key, v] of query) if (key.toLowerCase() === name) return { value: v, fromQuery: true }
    return undefined
  }
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(object.crc32 >>> 0)
  const checks: [string, string, string][] = [
    ['content-md5', 'Content-MD5', Buffer.from(object.md5, 'hex').toString('base64')],
    ['x-amz-checksum-crc32', 'CRC32', crc.toString('base64')],
    ['x-amz-checksum-sha256', 'SHA256', Buffer.from(object.sha256, 'hex').toString('base64')],
  ]
  let ignored: { name: string; ignored: boolean } | undefined
  for (const [field, name, actual] of checks) {
    const sent = value(field)
    if (sent === undefined || sent.value === actual) continue
    if (sent.fromQuery && field !== 'content-md5' && !strictQuery) ignored ??= { name, ignored: true }
    else return { name, ignored: false }
  }
  return ignored
}

function sendS3Error(req: IncomingMessage, res: ServerResponse, status: number, code: string, message: string): void {
  req.resume()
  const requestId = randomUUID()
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><RequestId>${requestId}</RequestId></Error>`
  sendText(res, status, xml, 'application/xml', { ...corsHeaders(req, EXPOSED), 'x-amz-request-id': requestId })
}

export const s3Endpoint: UpstreamHandler = async (req, res, { rawPath, query }, ctx) => {
  if (!rawPath.startsWith(PREFIX)) return false
  if (req.method === 'OPTIONS') {
    answerPreflight(req, res, ['PUT', 'GET', 'HEAD', 'DELETE'], EXPOSED)
    return true
  }
  const rest = rawPath.slice(PREFIX.length)
  const slash = rest.indexOf('/')
  const bucket = safeDecode(slash === -1 ? rest : rest.slice(0, slash))
  const key = slash === -1 ? '' : rest.slice(slash + 1)
  if (bucket !== ctx.options.zoneName) {
    sendS3Error(req, res, 404, 'NoSuchBucket', 'The specified bucket does not exist')
    return true
  }
  const refusal = await verifyPresignedRequest({
    req,
    rawPath,
    query,
    accessKeyId: ctx.options.zoneName,
    secretAccessKey: ctx.options.accessKey,
    region: ctx.options.s3Region,
  })
  if (refusal) {
    ctx.log(`s3 ${req.method} refused: ${refusal.code}`)
    sendS3Error(req, res, refusal.status, refusal.code, refusal.message)
    return true
  }
  const target = resolveInside(ctx.dirs.zone, key)
  if (!target) {
    sendS3Error(req, res, 400, 'InvalidArgument', 'Invalid object key')
    return true
  }
  if (target.relative === '' || key.endsWith('/')) {
    sendS3Error(req, res, 400, 'InvalidArgument', 'An object key is required')
    return true
  }
  if (req.method === 'PUT') {
    if ((await stat(target.absolute).catch(() => undefined))?.isDirectory()) {
      sendS3Error(req, res, 400, 'InvalidArgument', 'A folder of the storage zone already has this name')
      return true
    }
    if (req.headers['content-length'] === undefined) {
      sendS3Error(req, res, 411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.')
      return true
    }
    let mismatch: { name: string; ignored: boolean } | undefined
    const written = await writeObject({
      body: req,
      tmpDir: ctx.dirs.tmp,
      destination: target.absolute,
      accept: (object) => {
        mismatch = checksumMismatch(req, query, object, ctx.options.strictQueryChecksums)
        return mismatch === undefined || mismatch.ignored
      },
    })
    if (!written) {
      sendS3Error(req, res, 400, 'BadDigest', `The ${mismatch?.name ?? 'checksum'} you specified did not match the calculated checksum.`)
      return true
    }
    if (mismatch?.ignored) {
      ctx.log(`s3 PUT ${target.relative}: the presigned ${mismatch.name} does not match the body (ignored like AWS S3; strict S3-compatible stores refuse it)`)
    }
    ctx.checksums.set(target.relative, written.sha256)
    ctx.log(`s3 PUT ${target.relative} (${written.size} bytes)`)
    res.writeHead(200, { ...corsHeaders(req, EXPOSED), ETag: `"${written.md5}"`, 'Content-Length': '0' })
    res.end()
    return true
  }
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (!(await stat(target.absolute).catch(() => undefined))?.isFile()) {
      sendS3Error(req, res, 404, 'NoSuchKey', 'The specified key does not exist.')
      return true
    }
    const type = zoneFileType(target.relative, ctx.options.inlineActiveContent)
    await serveFile({ req, res, filePath: target.absolute, contentType: type.contentType, headers: { ...corsHeaders(req, EXPOSED), ...type.headers } })
    return true
  }
  if (req.method === 'DELETE') {
    req.resume()
    // S3 answers 204 whether or not the key existed.
    if ((await stat(target.absolute).catch(() => undefined))?.isFile()) {
      await rm(target.absolute, { force: true })
      ctx.checksums.delete(target.relative)
    }
    res.writeHead(204, corsHeaders(req, EXPOSED))
    res.end()
    return true
  }
  sendS3Error(req, res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.')
  return true
}
