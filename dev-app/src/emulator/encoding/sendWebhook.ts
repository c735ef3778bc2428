/**
 * @module emulator/encoding/sendWebhook
 * POSTs one signed encoding callback, retrying a failed delivery with exponential backoff.
 * Signature: lowercase hex HMAC-SHA256 of the exact raw body, keyed by the library's read-only key.
 */
import { createHmac } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'

export interface WebhookBody {
  VideoLibraryId: number
  VideoGuid: string
  Status: number
}

export interface SendWebhookArgs {
  url: string
  body: WebhookBody
  readOnlyKey: string
  /** Extra attempts after the first failure. */
  retries: number
  /** First backoff delay in ms; doubled each retry. */
  backoffMs: number
  signal: AbortSignal
  log: (line: string) => void
}

/** The headers that sign `rawBody`. */
export function webhookSignatureHeaders(rawBody: string, readOnlyKey: string): Record<string, string> {
  return {
    'X-HostStream-Signature': createHmac('sha256', readOnlyKey).update(rawBody, 'utf8').digest('hex'),
    'X-HostStream-Signature-Algorithm': 'hmac-sha256',
    'X-HostStream-Signature-Version': 'v1',
  }
}

/** Resolves true once a 2xx answer came back, false after the last failed attempt (or on close). */
export async function sendWebhook({ url, body, readOnlyKey, retries, backoffMs, signal, log }: SendWebhookArgs): Promise<boolean> {
  const rawBody = JSON.stringify(body)
  const headers = { 'Content-Type': 'application/json', ...webhookSignatureHeaders(rawBody, readOnlyKey) }
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (signal.aborted) return false
    try {
      const response = await fetch(url, { method: 'POST', headers, body: rawBody, signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]) })
      await response.arrayBuffer().catch(() => undefined)
      if (response.ok) {
        log(`webhook Status ${body.Status} for ${body.VideoGuid}: ${response.status}`)
        return true
      }
      log(`webhook Status ${body.Status} for ${body.VideoGuid}: ${response.status} (attempt ${attempt + 1})`)
    } catch (error) {
      if (signal.aborted) return false
      log(`webhook Status ${body.Status} for ${body.VideoGuid} failed: ${(error as Error).message} (attempt ${attempt + 1})`)
    }
    if (attempt < retries) await sleep(backoffMs * 2 ** attempt, undefined, { signal }).catch(() => undefined)
  }
  return false
}
