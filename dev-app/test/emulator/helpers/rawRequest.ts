/**
 * @module test/emulator/helpers/rawRequest
 * An HTTP request whose path is sent byte for byte (fetch would normalise `..` away).
 */
import { request } from 'node:http'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<RawResponse> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
