/**
 * @module emulator/stream/updateVideo
 * `POST /library/{id}/videos/{guid}` (Update Video): `title`, `collectionId` and `chapters`
 * (`[{title, start, end}]`, seconds), each optional; a malformed field is refused (400) and nothing
 * of the body is applied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EmulatorContext } from '../context.js'
import { readJsonBody } from '../http/readJsonBody.js'
import { apiStatus } from './apiStatus.js'
import type { VideoChapter, VideoRecord } from './VideoStore.js'

function parseChapters(value: unknown): VideoChapter[] | undefined {
  if (!Array.isArray(value)) return undefined
  const chapters: VideoChapter[] = []
  for (const item of value as unknown[]) {
    const { title, start, end } = (item ?? {}) as Record<string, unknown>
    if (typeof title !== 'string' || typeof start !== 'number' || typeof end !== 'number' || start < 0 || end < start) return undefined
    chapters.push({ title, start, end })
  }
  return chapters
}

export async function updateVideo(req: IncomingMessage, res: ServerResponse, video: VideoRecord, ctx: EmulatorContext): Promise<void> {
  const body = await readJsonBody(req)
  if (!body || typeof body !== 'object') return apiStatus(res, 400, 'Invalid request body')
  const { title, collectionId, chapters } = body as { title?: unknown; collectionId?: unknown; chapters?: unknown }
  if (title !== undefined && (typeof title !== 'string' || title.trim() === '')) return apiStatus(res, 400, 'The title must be a non-empty string')
  if (collectionId !== undefined && collectionId !== null && collectionId !== '') {
    if (typeof collectionId !== 'string' || !ctx.collections.get(collectionId)) return apiStatus(res, 400, 'The collection does not exist')
  }
  const parsedChapters = chapters === undefined || chapters === null ? undefined : parseChapters(chapters)
  if (chapters !== undefined && chapters !== null && !parsedChapters)
    return apiStatus(res, 400, 'chapters must be [{title, start, end}] with 0 <= start <= end')
  if (typeof title === 'string') video.title = title
  if (collectionId !== undefined) video.collectionId = typeof collectionId === 'string' ? collectionId : ''
  if (parsedChapters) video.chapters = parsedChapters
  apiStatus(res, 200, 'OK')
}
