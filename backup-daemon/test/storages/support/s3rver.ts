/**
 * @module test/storages/support/s3rver
 * A real S3-compatible HTTP server (s3rver) on 127.0.0.1, a free port, files in a temp folder.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface RunningS3 {
  endpoint: string
  bucket: string
  close(): Promise<void>
}

interface S3rverInstance {
  run(): Promise<{ port: number; address: string }>
  close(): Promise<void>
}

export async function startS3rver(bucket = 'backups'): Promise<RunningS3> {
  const directory = await mkdtemp(join(tmpdir(), 'bd-s3rver-'))
  const S3rver = createRequire(import.meta.url)('s3rver') as new (options: object) => S3rverInstance
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] })
  const { port } = await server.run()
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    close: async () => {
      await server.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}
