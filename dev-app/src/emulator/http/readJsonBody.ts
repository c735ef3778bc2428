/**
 * @module emulator/http/readJsonBody
 * Reads a small JSON request body (API calls only; file bodies are always streamed to disk).
 */
import type { IncomingMessage } from 'node:http'

/** Bodies of API calls are tiny; anything bigger is refused rather than buffered. */
const MAX_JSON_BYTES = 1024 * 1024

/** Resolves to the parsed body, `{}` when empty, or `undefined` when it is not valid JSON or too large. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_JSON_BYTES) return undefined
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (text === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
