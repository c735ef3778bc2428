/**
 * @module test/support/s3Bucket
 * A real S3-compatible server (s3rver, the one the daemon's S3 tests use) on 127.0.0.1 with one bucket, for
 * a site that keeps its files with the official S3 adapter (`@payloadcms/storage-s3`).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export { s3Credentials } from './s3Credentials.js'

export interface S3Bucket {
  endpoint: string
  bucket: string
  close(): Promise<void>
}

interface S3rverInstance {
  run(): Promise<{ port: number }>
  close(): Promise<void>
}

export async function startS3Bucket(bucket: string): Promise<S3Bucket> {
  const directory = await mkdtemp(join(tmpdir(), 'plugin-storage-s3-'))
  const S3rver = createRequire(import.meta.url)('s3rver') as new (options: object) => S3rverInstance
  const server = new S3rver({ address: '127.0.0.1', configureBuckets: [{ name: bucket }], directory, port: 0, silent: true })
  const { port } = await server.run()
  let closed: Promise<void> | undefined
  return {
    bucket,
    // Once, however often it is called (a test stops the bucket on purpose, its `after` again).
    close: () => (closed ??= server.close().then(() => rm(directory, { force: true, recursive: true }))),
    endpoint: `http://127.0.0.1:${port}`,
  }
}
