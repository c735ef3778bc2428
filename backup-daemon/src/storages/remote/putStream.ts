/**
 * @module storages/remote/putStream
 * A `PUT` of a byte stream through node:http(s), for the storage host's uploads and the stream library's
 * video uploads: `fetch` reads a stream body ahead of a slow connection (a whole part or video could end up
 * in memory), while `pipeline` into the request keeps backpressure. Resolves with the answer's status and
 * text (the caller decides what a status means); on any failure both ends are destroyed.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

export async function putStream(url: URL, headers: Record<string, string>, body: Readable, signal?: AbortSignal): Promise<{ status: number; text: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  const request = send(url, { method: 'PUT', headers, ...(signal && { signal }) })
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve)
    request.once('error', reject)
  })
  try {
    await pipeline(body, request)
    const answer = await response
    const text = Buffer.concat(await answer.toArray()).toString('utf8')
    return { status: answer.statusCode ?? 0, text }
  } catch (err) {
    body.destroy()
    request.destroy()
    throw err
  }
}
