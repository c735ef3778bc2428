/**
 * @module upstream/presignPut
 * A SigV4 presigned PUT on the storage host's S3-compatible endpoint, bound to one key, one content
 * type and one size (both are signed headers: a browser sending anything else is refused by the host).
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'

export interface PresignConfig {
  s3Endpoint: string
  s3Region: string
  zoneName: string
  accessKey: string
}

export interface PresignedPut {
  url: string
  method: 'PUT'
  /** Headers the browser must send unchanged (they are part of the signature). */
  headers: Record<string, string>
  expiresAt: number
}

const clients = new Map<string, S3Client>()

function clientFor(c: PresignConfig): S3Client {
  const cacheKey = `${c.s3Endpoint}|${c.s3Region}|${c.zoneName}|${c.accessKey}`
  let client = clients.get(cacheKey)
  if (!client) {
    client = new S3Client({
      credentials: { accessKeyId: c.zoneName, secretAccessKey: c.accessKey },
      endpoint: c.s3Endpoint,
      forcePathStyle: true,
      region: c.s3Region,
    })
    clients.set(cacheKey, client)
  }
  return client
}

/** Presigns `PUT {s3Endpoint}/{zone}/{key}` for `expiresIn` seconds. */
export async function presignPut(c: PresignConfig, key: string, contentType: string, size: number, expiresIn: number): Promise<PresignedPut> {
  const command = new PutObjectCommand({ Bucket: c.zoneName, ContentLength: size, ContentType: contentType, Key: key })
  const url = await getSignedUrl(clientFor(c), command, {
    expiresIn,
    // Keep both in the signed headers, never hoisted into the query: the binding must hold.
    signableHeaders: new Set(['content-type', 'content-length']),
    unhoistableHeaders: new Set(['content-type', 'content-length']),
  })
  return { url, method: 'PUT', headers: { 'Content-Type': contentType }, expiresAt: Math.floor(Date.now() / 1000) + expiresIn }
}
