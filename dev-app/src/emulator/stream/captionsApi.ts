/**
 * @module emulator/stream/captionsApi
 * `POST|DELETE /library/{id}/videos/{guid}/captions/{srclang}` (Add / Delete Caption): the body of
 * an add is `{srclang, label, captionsFile}` with the file base64-encoded; it is stored as
 * `captions/{guid}/{srclang}.vtt` and served by the stream pull zone at `{guid}/captions/{srclang}.vtt`.
 * An add for a language the video already has replaces it.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import path from 'node:path'
import type { EmulatorContext } from '../context.js'
import { readJsonBody } from '../http/readJsonBody.js'
import { apiStatus } from './apiStatus.js'
import type { VideoRecord } from './VideoStore.js'

/** A language shortcode such as `en` or `pt-BR`: also a file name, so nothing else passes. */
const SRCLANG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/

export function captionFile(ctx: EmulatorContext, guid: string, srclang: string): string {
  return path.join(ctx.dirs.captions, guid, `${srclang}.vtt`)
}

export async function captionsApi(req: IncomingMessage, res: ServerResponse, video: VideoRecord, srclang: string, ctx: EmulatorContext): Promise<void> {
  if (!SRCLANG.test(srclang)) {
    req.resume()
    return apiStatus(res, 400, 'Invalid srclang')
  }
  const captions = video.captions ?? []
  if (req.method === 'DELETE') {
    req.resume()
    if (!captions.some((caption) => caption.srclang === srclang)) return apiStatus(res, 404, 'Caption not found')
    video.captions = captions.filter((caption) => caption.srclang !== srclang)
    await rm(captionFile(ctx, video.guid, srclang), { force: true })
    return apiStatus(res, 200, 'OK')
  }
  if (req.method !== 'POST') {
    req.resume()
    return apiStatus(res, 405, 'Method Not Allowed')
  }
  const body = (await readJsonBody(req)) as { label?: unknown; captionsFile?: unknown } | undefined
  if (!body || typeof body.captionsFile !== 'string' || body.captionsFile === '') return apiStatus(res, 400, 'captionsFile (base64) is required')
  const file = captionFile(ctx, video.guid, srclang)
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, Buffer.from(body.captionsFile, 'base64'))
  const label = typeof body.label === 'string' && body.label !== '' ? body.label : srclang
  video.captions = [...captions.filter((caption) => caption.srclang !== srclang), { srclang, label }]
  apiStatus(res, 200, 'OK')
}
