/**
 * @module storages/s3/copyObject
 * Server-side copy of one object (no byte passes through the daemon): a single CopyObject up to
 * 5 GiB, S3's limit for it, and a multipart copy (UploadPartCopy in ranges) above.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  UploadPartCopyCommand,
  type S3Client,
  type StorageClass,
} from '@aws-sdk/client-s3'

export interface CopyObjectArgs {
  client: S3Client
  bucket: string
  from: string
  to: string
  size: number
  storageClass?: string
  /** Largest size copied in one request. @default 5 GiB */
  singleCopyLimit?: number
  /** Range size of a multipart copy. @default 1 GiB */
  partSize?: number
}

export async function copyObject({
  client,
  bucket,
  from,
  to,
  size,
  storageClass,
  singleCopyLimit = 5 * 1024 ** 3,
  partSize = 1024 ** 3,
}: CopyObjectArgs): Promise<void> {
  const source = `${bucket}/${from.split('/').map(encodeURIComponent).join('/')}`
  const StorageClass = storageClass as StorageClass | undefined
  if (size <= singleCopyLimit) {
    await client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: source, StorageClass }))
    return
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: to, StorageClass }))
  try {
    const parts: { ETag?: string; PartNumber: number }[] = []
    for (let start = 0, number = 1; start < size; start += partSize, number++) {
      const end = Math.min(size, start + partSize) - 1
      const result = await client.send(
        new UploadPartCopyCommand({ Bucket: bucket, Key: to, UploadId, PartNumber: number, CopySource: source, CopySourceRange: `bytes=${start}-${end}` }),
      )
      parts.push({ ETag: result.CopyPartResult?.ETag, PartNumber: number })
    }
    await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: to, UploadId, MultipartUpload: { Parts: parts } }))
  } catch (err) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: to, UploadId })).catch(() => {})
    throw err
  }
}
