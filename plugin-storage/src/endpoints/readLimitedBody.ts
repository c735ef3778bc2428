/**
 * @module endpoints/readLimitedBody
 * Reads a request body up to a byte limit, for endpoints anyone can reach (the webhook): the declared
 * `Content-Length` is checked before a byte is read, and a chunked body is counted while it streams and
 * left unread past the limit, so an oversized POST never costs more memory than the limit. A body that
 * has not arrived within a deadline (10 s by default; these bodies are a few hundred bytes) is refused and
 * its connection torn down, so a slow sender cannot hold a socket open until Node's own 300 s timeout.
 */
import type { PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'

/** Thrown past the limit: a 413 {@link HttpError} (the package's one HTTP error type). */
const bodyTooLarge = (limit: number) => new HttpError(413, `The request body exceeds ${limit} bytes.`)

/** How long a whole body may take to arrive by default. */
export const BODY_DEADLINE_MS = 10_000

/** Thrown when the body is still incomplete at the deadline: a 408 {@link HttpError}. */
class BodyTooSlow extends HttpError {
  constructor(ms: number) {
    super(408, `The request body did not arrive within ${ms / 1000} s.`)
  }
}

/**
 * The raw body, or a 413 {@link HttpError} as soon as it is known to exceed `limit` bytes, or a 408 when
 * it is not complete after `deadlineMs`.
 */
export async function readLimitedBody(req: PayloadRequest, limit: number, deadlineMs = BODY_DEADLINE_MS): Promise<Buffer> {
  const declared = req.headers.get('content-length')
  if (declared !== null && declared.trim() !== '' && !(Number(declared) <= limit)) throw bodyTooLarge(limit)
  const stream = req.body as ReadableStream<Uint8Array> | null | undefined
  if (!stream) return Buffer.alloc(0)
  const reader = stream.getReader()
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new BodyTooSlow(deadlineMs)), deadlineMs)
  })
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline])
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
  } catch (err) {
    // A sender this slow is torn down on purpose (unlike the 413 above): left open, its socket would stay
    // until Node's request timeout, and a few hundred such senders hold the server's sockets.
    if (err instanceof BodyTooSlow) void reader.cancel().catch(() => undefined)
    throw err
  } finally {
    clearTimeout(timer)
  }
  return Buffer.concat(chunks, total)
}
