/**
 * @module test/emulator/helpers/webhookReceiver
 * A local HTTP server standing in for the CMS webhook endpoint: records every delivery with its raw
 * body and headers, and can fail the first N requests to exercise retries.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Delivery {
  raw: Buffer
  headers: Record<string, string | string[] | undefined>
  /** Status this receiver answered. */
  answered: number
}

export interface WebhookReceiver {
  url: string
  deliveries: Delivery[]
  /** Answer 500 to the next `count` requests. */
  failNext(count: number): void
  close(): Promise<void>
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = []
  let failures = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const answered = failures > 0 ? 500 : 200
      if (failures > 0) failures--
      deliveries.push({ raw: Buffer.concat(chunks), headers: req.headers, answered })
      res.writeHead(answered, { 'Content-Type': 'application/json' })
      res.end(answered === 200 ? '{"message":"Acknowledged"}' : '{"errors":[{"message":"boom"}]}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/api/storage-host/stream/webhook`,
    deliveries,
    failNext(count) {
      failures = count
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
