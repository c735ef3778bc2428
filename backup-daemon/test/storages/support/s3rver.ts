/**
 * @module test/storages/support/s3rver
 * A real S3-compatible HTTP server (s3rver) on 127.0.0.1, a free port, files in a temp folder: in
 * the test's process, or in a child process (`startS3rverProcess`) that a test can SIGSTOP.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stopServer } from '../../support/stopServer.js'

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

export interface S3rverProcess extends RunningS3 {
  process: ChildProcess
}

/** s3rver in a child process (`s3rverChild.mjs`): `process.kill('SIGSTOP')` makes a server that stops answering. */
export async function startS3rverProcess(bucket = 'backups'): Promise<S3rverProcess> {
  const directory = await mkdtemp(join(tmpdir(), 'bd-s3rver-'))
  const script = fileURLToPath(new URL('./s3rverChild.mjs', import.meta.url))
  const child = spawn(process.execPath, [script, directory, bucket], { stdio: ['ignore', 'pipe', 'pipe'] })
  // A test run that ends without close() (a timeout, mocha --exit) must not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.off('exit', killOnExit))
  let output = ''
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start: ${output}`)), 15_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /^(\d+)\n/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`s3rver exited with ${code}: ${output}`))
    })
  })
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    process: child,
    close: async () => {
      // A stopped process cannot end: woken first.
      child.kill('SIGCONT')
      await stopServer(child, directory)
    },
  }
}
