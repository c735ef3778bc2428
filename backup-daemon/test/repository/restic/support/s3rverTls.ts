/**
 * @module test/repository/restic/support/s3rverTls
 * s3rver over HTTPS with a throwaway self-signed certificate for 127.0.0.1, for restic's `s3:` backend:
 * restic 0.14 over plain http stores its aws-chunked upload framing raw (every later read then fails), over
 * HTTPS with `--cacert <cert>` init, backup, snapshots and check all work (NOTES-lead.md). Bucket names of
 * three characters or more.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

export interface TlsS3 {
  /** `https://127.0.0.1:<port>` */
  endpoint: string
  bucket: string
  /** The server's certificate (PEM file), for `--cacert`. */
  certFile: string
  accessKeyId: string
  secretAccessKey: string
  close(): Promise<void>
}

interface S3rverInstance {
  run(): Promise<{ port: number }>
  close(): Promise<void>
}

export async function startTlsS3rver(bucket = 'restic-tests'): Promise<TlsS3> {
  const dir = await mkdtemp(join(tmpdir(), 'bd-s3tls-'))
  const certFile = join(dir, 'cert.pem')
  const keyFile = join(dir, 'key.pem')
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ])
  const S3rver = createRequire(import.meta.url)('s3rver') as new (options: object) => S3rverInstance
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(dir, 'data'),
    key: await readFile(keyFile),
    cert: await readFile(certFile),
    configureBuckets: [{ name: bucket }],
  })
  const { port } = await server.run()
  return {
    endpoint: `https://127.0.0.1:${port}`,
    bucket,
    certFile,
    // s3rver's fixed credentials.
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    close: async () => {
      await server.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
