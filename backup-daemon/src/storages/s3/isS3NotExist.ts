/**
 * @module storages/s3/isS3NotExist
 * "No such object" as the S3 SDK reports it (GetObject: `NoSuchKey`; HEAD: `NotFound`; any 404).
 */
export function isS3NotExist(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404
}
