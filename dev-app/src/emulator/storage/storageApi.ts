/**
 * @module emulator/storage/storageApi
 * The storage API: `PUT|GET|DELETE /storage/{zone}/{path}` with the zone password in `AccessKey`,
 * listings on a trailing slash, optional `Checksum` (uppercase hex SHA-256) on uploads.
 */
import { rm, stat, mkdir } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { safeEqual } from '../auth/safeEqual.js'
import { resolveInside } from '../auth/resolveInside.js'
import type { UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { sendJson } from '../http/sendJson.js'
import { serveFile } from '../http/serveFile.js'
import { zoneFileType } from '../http/zoneFileType.js'
import { listDirectory } from './listDirectory.js'
import { writeObject } from './writeObject.js'

const PREFIX = '/storage/'

/** The real API answers `{HttpCode, Message}` on every non-file response. */
function reply(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { HttpCode: status, Message: message })
}

export const storageApi: UpstreamHandler = async (req, res, { rawPath }, ctx) => {
  if (!rawPath.startsWith(PREFIX)) return false
  const rest = rawPath.slice(PREFIX.length)
  const slash = rest.indexOf('/')
  const zone = safeDecode(slash === -1 ? rest : rest.slice(0, slash))
  const objectPath = slash === -1 ? '' : rest.slice(slash + 1)
  const accessKey = req.headers.accesskey
  // The zone password is per zone, so an unknown zone and a wrong key look the same: 401.
  if (zone !== ctx.options.zoneName || !safeEqual(typeof accessKey === 'string' ? accessKey : undefined, ctx.options.accessKey)) {
    req.resume()
    reply(res, 401, 'Unauthorized')
    return true
  }
  const target = resolveInside(ctx.dirs.zone, objectPath)
  if (!target) {
    req.resume()
    reply(res, 400, 'Invalid path')
    return true
  }
  const isDirectoryPath = objectPath === '' || objectPath.endsWith('/')
  switch (req.method) {
    case 'PUT':
      await putObject(req, res, target, isDirectoryPath, ctx)
      return true
    case 'GET':
    case 'HEAD':
      if (isDirectoryPath) {
        const listing = await listDirectory({ zoneRoot: ctx.dirs.zone, zoneName: zone, relativeDir: target.relative, checksums: ctx.checksums })
        sendJson(res, 200, listing)
        return true
      }
      if (!(await isFile(target.absolute))) {
        reply(res, 404, 'Object Not Found')
        return true
      }
      await serveFile({ req, res, filePath: target.absolute, ...zoneFileType(target.relative, ctx.options.inlineActiveContent) })
      return true
    case 'DELETE':
      await deleteObject(res, target, ctx.checksums)
      return true
    default:
      req.resume()
      reply(res, 405, 'Method Not Allowed')
      return true
  }
}

async function isFile(absolute: string): Promise<boolean> {
  return (await stat(absolute).catch(() => undefined))?.isFile() ?? false
}

async function putObject(
  req: Parameters<UpstreamHandler>[0],
  res: ServerResponse,
  target: { absolute: string; relative: string },
  isDirectoryPath: boolean,
  ctx: Parameters<UpstreamHandler>[3],
): Promise<void> {
  if (isDirectoryPath) {
    req.resume()
    if (target.relative === '') return reply(res, 400, 'Invalid path')
    await mkdir(target.absolute, { recursive: true })
    return reply(res, 201, 'Directory created.')
  }
  if ((await stat(target.absolute).catch(() => undefined))?.isDirectory()) {
    req.resume()
    return reply(res, 400, 'A directory exists at this path')
  }
  const checksum = req.headers.checksum
  if (checksum !== undefined && (typeof checksum !== 'string' || !/^[0-9A-F]{64}$/.test(checksum))) {
    req.resume()
    return reply(res, 400, 'Checksum must be an uppercase hex SHA-256')
  }
  const written = await writeObject({
    body: req,
    tmpDir: ctx.dirs.tmp,
    destination: target.absolute,
    accept: (object) => checksum === undefined || object.sha256 === checksum,
  })
  if (!written) return reply(res, 400, 'Checksum and file hash do not match')
  ctx.checksums.set(target.relative, written.sha256)
  ctx.log(`storage PUT ${target.relative} (${written.size} bytes)`)
  reply(res, 201, 'File uploaded.')
}

async function deleteObject(res: ServerResponse, target: { absolute: string; relative: string }, checksums: Map<string, string>): Promise<void> {
  if (target.relative === '') return reply(res, 400, 'Cannot delete the zone root')
  const info = await stat(target.absolute).catch(() => undefined)
  if (!info) return reply(res, 404, 'Object Not Found')
  await rm(target.absolute, { recursive: true, force: true })
  for (const key of [...checksums.keys()]) {
    if (key === target.relative || key.startsWith(`${target.relative}/`)) checksums.delete(key)
  }
  reply(res, 200, 'File deleted successfuly.')
}
