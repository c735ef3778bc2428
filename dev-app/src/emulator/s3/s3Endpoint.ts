/**
 * @module emulator/s3/s3Endpoint
 * The storage's S3-compatible endpoint for browser-direct uploads: `PUT /s3/{zone}/{key}` with a
 * SigV4 presigned query (access key id = zone name, secret = zone password). The object lands in
 * the same zone folder the storage API and the CDN serve. GET/HEAD accept presigned URLs too.
 */
import { randomUUID } from 'node:crypto'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BadPathError, resolveInside } from '../auth/resolveInside.js'
import type { UpstreamHandler } from '../context.js'
import { contentTypeOf } from '../http/contentTypeOf.js'
import { answerPreflight, corsHeaders } from '../http/cors.js'
import { sendText } from '../http/sendJson.js'
import { serveFile } from '../http/serveFile.js'
import { writeObject } from '../storage/writeObject.js'
import type { WrittenObject } from '../storage/writeObject.js'
import { verifyPresignedRequest } from './verifyPresignedRequest.js'

const PREFIX = '/s3/'
const EXPOSED = ['ETag', 'x-amz-request-id', 'Content-Length', 'Content-Range']

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * S3 verifies the integrity values a request carries: `Content-MD5` and the flexible checksums
 * (`x-amz-checksum-crc32` / `-sha256`, as headers or, presigned, in the query). The presigner of
 * AWS SDK v3 puts a CRC32 *of an empty body* in the URL unless the client is created with
 * `requestChecksumCalculation: 'WHEN_REQUIRED'`: S3 then refuses the upload, and so does the emulator.
 * Algorithms it cannot compute here (CRC32C, CRC64NVME, SHA-1) are accepted unchecked.
 */
function checksumMismatch(req: IncomingMessage, query: URLSearchParams, object: WrittenObject): string | undefined {
  const value = (name: string): string | undefined => {
    const header = req.headers[name]
    if (typeof header === 'string') return header
    for (const [key, v] of query) if (key.toLowerCase() === name) return v
    return undefined
  }
  const md5 = value('content-md5')
  if (md5 !== undefined && md5 !== Buffer.from(object.md5, 'hex').toString('base64')) return 'Content-MD5'
  const crc32 = value('x-amz-checksum-crc32')
  if (crc32 !== undefined) {
    const expected = Buffer.alloc(4)
    expected.writeUInt32BE(object.crc32 >>> 0)
    if (crc32 !== expected.toString('base64')) return 'CRC32'
  }
  const sha256 = value('x-amz-checksum-sha256')
  if (sha256 !== undefined && sha256 !== Buffer.from(object.sha256, 'hex').toString('base64')) return 'SHA256'
  return undefined
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
    answerPreflight(req, res, ['PUT', 'GET', 'HEAD'], EXPOSED)
    return true
  }
  const rest = rawPath.slice(PREFIX.length)
  const slash = rest.indexOf('/')
  const bucket = decodeURIComponent(slash === -1 ? rest : rest.slice(0, slash))
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
  let target: { absolute: string; relative: string }
  try {
    target = resolveInside(ctx.dirs.zone, key)
  } catch (error) {
    if (!(error instanceof BadPathError)) throw error
    sendS3Error(req, res, 400, 'InvalidArgument', 'Invalid object key')
    return true
  }
  if (target.relative === '' || key.endsWith('/')) {
    sendS3Error(req, res, 400, 'InvalidArgument', 'An object key is required')
    return true
  }
  if (req.method === 'PUT') {
    if (req.headers['content-length'] === undefined) {
      sendS3Error(req, res, 411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.')
      return true
    }
    let mismatch: string | undefined
    const written = await writeObject({
      body: req,
      tmpDir: ctx.dirs.tmp,
      destination: target.absolute,
      accept: (object) => (mismatch = checksumMismatch(req, query, object)) === undefined,
    })
    if (!written) {
      sendS3Error(req, res, 400, 'BadDigest', `The ${mismatch ?? 'checksum'} you specified did not match the calculated checksum.`)
      return true
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
    await serveFile({ req, res, filePath: target.absolute, contentType: contentTypeOf(target.relative), headers: corsHeaders(req, EXPOSED) })
    return true
  }
  sendS3Error(req, res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.')
  return true
}
