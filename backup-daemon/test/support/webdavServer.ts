/**
 * @module test/support/webdavServer
 * A throwaway WebDAV server: `rclone serve webdav` on 127.0.0.1 and a free port, serving a temp
 * folder with Basic authentication (user `u`, password `p`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './freePort.js'
import { stopServer } from './stopServer.js'

export interface WebdavServer {
  url: string
  username: string
  password: string
  /** The folder on disk the server serves. */
  root: string
  /** First line of `rclone version`. */
  version: string
  process: ChildProcess
  stop(): Promise<void>
}

export async function startWebdavServer(): Promise<WebdavServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bd-webdav-'))
  const root = join(dir, 'root')
  await mkdir(root)
  const port = await freePort()
  const version = (await promisify(execFile)('rclone', ['version'])).stdout.split('\n')[0]!.trim()
  // --config /dev/null: no rclone.conf of the machine's user is read or written.
  const child = spawn('rclone', ['serve', 'webdav', '--config', '/dev/null', '--addr', `127.0.0.1:${port}`, '--user', 'u', '--pass', 'p', root], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  // A test run that ends without stop() (a timeout, mocha --exit) must not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.off('exit', killOnExit))
  let log = ''
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()))
  const url = `http://127.0.0.1:${port}/`
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`rclone exited with ${child.exitCode}: ${log}`)
    const up = await fetch(url, { method: 'OPTIONS' }).then(
      () => true,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`rclone serve webdav did not start: ${log}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url,
    username: 'u',
    password: 'p',
    root,
    version,
    process: child,
    stop: () => stopServer(child, dir),
  }
}
