/**
 * s3rver in a process of its own (test/storages/support/s3rver.ts `startS3rverProcess`), so a test can
 * SIGSTOP it: a server whose connections stay open and answer nothing. Arguments: folder, bucket;
 * prints the port it listens on (127.0.0.1) once it does.
 */
import { createRequire } from 'node:module'

const S3rver = createRequire(import.meta.url)('s3rver')
const [directory, bucket] = process.argv.slice(2)
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] })
const { port } = await server.run()
process.stdout.write(`${port}\n`)
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)))
