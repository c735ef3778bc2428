/**
 * @module endpoints/webhook
 * `POST /api/storage-host/stream/webhook`: encoding callbacks of the streaming host.
 * Only the HMAC-SHA256 over the exact raw bytes counts (compared in constant time). Statuses (DESIGN.md):
 * missing or bad signature 401, wrong algorithm or version 400, body over 64 KiB 413 (read no further),
 * unknown library 401 (never reveals which libraries exist), acknowledgement 200
 * `{"message":"Acknowledged"}`. Callbacks carry no timestamp, so handling is idempotent and order-safe
 * (see stream/statusMachine).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

import type { Endpoint, PayloadRequest } from 'payload'

import { INTERNAL_UPDATE_CONTEXT, WEBHOOK_PATH } from '../constants.js'
import type { PluginContext } from '../context.js'
import { collectionsOfLibrary, librariesOf, type ResolvedStream } from '../options/resolveOptions.js'
import { webhookOperation } from '../openapi/operations.js'
import { mp4Resolutions, readVideo, videoObjectData } from '../stream/refreshStreamData.js'
import { nextStatus } from '../stream/statusMachine.js'
import type { StreamHostData } from '../types.js'
import { HttpError } from '../errors.js'
import { withErrors } from './withErrors.js'
import { readLimitedBody } from './readLimitedBody.js'

/** Largest webhook body read (64 KiB); a callback is `{Status, VideoGuid, VideoLibraryId}`. */
export const WEBHOOK_BODY_LIMIT = 64 * 1024

/** Callbacks for one video are applied one after another (read-modify-write of the document). */
const queues = new Map<string, Promise<unknown>>()

function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve()
  const run = previous.then(task, task)
  const tail = run.catch(() => undefined)
  queues.set(key, tail)
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key)
  })
  return run
}

/** Lowercase hex HMAC, compared in constant time (length checked first: timingSafeEqual needs equal sizes). */
export function verifySignature(raw: Buffer, secret: string, signature: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'), 'utf8')
  const given = Buffer.from(signature, 'utf8')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

interface WebhookBody {
  Status: number
  VideoGuid: string
  VideoLibraryId: number
}

function parseBody(raw: Buffer): WebhookBody {
  let body: unknown
  try {
    body = JSON.parse(raw.toString('utf8'))
  } catch {
    throw new HttpError(400, 'The request body must be JSON.')
  }
  const b = body as Partial<WebhookBody> | null
  if (!b || typeof b.Status !== 'number' || typeof b.VideoGuid !== 'string' || !b.VideoGuid || typeof b.VideoLibraryId !== 'number') {
    throw new HttpError(400, 'The body needs Status (number), VideoGuid (string) and VideoLibraryId (number).')
  }
  return b as WebhookBody
}

/** The stream collections of the library a callback names, and the library itself. */
async function applyCallback(ctx: PluginContext, stream: ResolvedStream, req: PayloadRequest, body: WebhookBody): Promise<void> {
  for (const collection of collectionsOfLibrary(ctx.options, stream)) {
    const found = await req.payload.find({
      collection: collection.slug,
      depth: 0,
      limit: 100,
      overrideAccess: true,
      pagination: false,
      where: { 'hostData.stream.videoId': { equals: body.VideoGuid } },
    })
    for (const doc of found.docs as Array<{ id: number | string; hostData?: { stream?: StreamHostData } }>) {
      const current = doc.hostData?.stream ?? {}
      const status = nextStatus(current.status, body.Status)
      if (!status) continue
      const update: StreamHostData = { ...current, status }
      delete update.videoToken
      const video = await readVideo(stream, body.VideoGuid)
      if (video) Object.assign(update, videoObjectData(video))
      if (status === 'finished') {
        update.encodeProgress = 100
        if (stream.mp4Fallback) update.resolutions = await mp4Resolutions(stream, body.VideoGuid)
      }
      await req.payload.update({
        collection: collection.slug,
        context: { [INTERNAL_UPDATE_CONTEXT]: true },
        data: { hostData: { stream: update } },
        depth: 0,
        id: doc.id,
        overrideAccess: true,
      })
    }
  }
}

/**
 * The libraries whose secret signed these exact bytes. Several libraries may share one endpoint (and even
 * one secret); the body may only be trusted once a signature matched, so every configured secret is tried
 * (each compare in constant time) before the body is read.
 */
function signedBy(libraries: ResolvedStream[], raw: Buffer, signature: string): ResolvedStream[] {
  return libraries.filter((library) => library.webhook && verifySignature(raw, library.webhook.secret, signature))
}

async function handleWebhook(ctx: PluginContext, req: PayloadRequest): Promise<Response> {
  const signature = req.headers.get('x-hoststream-signature')
  if (!signature) throw new HttpError(401, 'Missing signature.')
  if ((req.headers.get('x-hoststream-signature-algorithm') ?? '').toLowerCase() !== 'hmac-sha256') throw new HttpError(400, 'Unsupported signature algorithm.')
  if (req.headers.get('x-hoststream-signature-version') !== 'v1') throw new HttpError(400, 'Unsupported signature version.')
  // Capped before the signature is checked: anyone can POST here, a callback is a few hundred bytes.
  const raw = await readLimitedBody(req, WEBHOOK_BODY_LIMIT)
  const signers = signedBy(librariesOf(ctx.options), raw, signature)
  if (signers.length === 0) throw new HttpError(401, 'Invalid signature.')
  const body = parseBody(raw)
  // Routed by the library the body names, which must be one whose key signed it (same answer as a bad
  // signature: never reveals which libraries exist).
  const stream = signers.find((library) => library.libraryId === body.VideoLibraryId)
  if (!stream) throw new HttpError(401, 'Invalid signature.')
  await serialised(`${stream.libraryId}/${body.VideoGuid}`, () => applyCallback(ctx, stream, req, body))
  return Response.json({ message: 'Acknowledged' })
}

/** The endpoint, registered when a library has a webhook secret. */
export function webhookEndpoint(ctx: PluginContext): Endpoint {
  return {
    custom: { openapi: webhookOperation },
    handler: withErrors('webhook', (req) => handleWebhook(ctx, req)),
    method: 'post',
    path: WEBHOOK_PATH,
  }
}
