/**
 * @module endpoints/readLimitedBody
 * Reads a request body up to a byte limit, for endpoints anyone can reach (the webhook): the declared
 * `Content-Length` is checked before a byte is read, and a chunked body is counted while it streams and
 * left unread past the limit, so an oversized POST never costs more memory than the limit.
 */
import type { PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'

/** Thrown past the limit: a 413 {@link HttpError} (the package's one HTTP error type). */
const bodyTooLarge = (limit: number) => new HttpError(413, `The request body exceeds ${limit} bytes.`)

/** The raw body, or a 413 {@link HttpError} as soon as it is known to exceed `limit` bytes. */
export async function readLimitedBody(req: PayloadRequest, limit: number): Promise<Buffer> {
  const declared = req.headers.get('content-length')
  if (declared !== null && declared.trim() !== '' && !(Number(declared) <= limit)) throw bodyTooLarge(limit)
  const stream = req.body as ReadableStream<Uint8Array> | null | undefined
  if (!stream) return Buffer.alloc(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      // Stop reading here. Not `cancel()`, nor `Connection: close`: on Node either tears the socket down
      // while the client is still sending, and it sees EPIPE/ECONNRESET instead of the 413. Unread, the
      // socket applies back-pressure: the client gets the answer and stops; memory stays at the limit.
      reader.releaseLock()
      throw bodyTooLarge(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}
