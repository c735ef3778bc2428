/**
 * @module sources/redis/temporaryRedisServer
 * A throwaway `redis-server` for a restore drill, loading an RDB from a folder of the drill's scratch
 * space: bound to 127.0.0.1 on a free port, no saving (`--save ""`, `--appendonly no`), and started as a
 * replica of a port nobody listens on (`--replicaof 127.0.0.1 1`) so it keeps the RDB's expired keys, as
 * the key count at backup does (a primary drops them while loading). Its pid is recorded
 * (`support/scratchServer`) so a killed drill's server is stopped at the next start. A file that does not
 * load ends the server: its own log line is the error.
 */
import type { ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { delimiter, join } from 'node:path'
import { findExecutable } from '../support/findExecutable.js'
import { killScratchServer, recordScratchServer } from '../support/scratchServer.js'
import { freePort } from '../support/freePort.js'
import { spawnOwned } from '../support/spawnOwned.js'

export interface TemporaryRedisServer {
  port: number
  /** `INFO keyspace` as keys per database (`{ db0: 42 }`), once the RDB is loaded. */
  keyspace(): Promise<Record<string, number>>
  stop(): Promise<void>
}

const searchPath = [process.env.PATH ?? '', '/usr/bin', '/usr/sbin', '/usr/local/bin'].join(delimiter)

/** One command over a fresh connection; resolves with the reply's text (an error reply rejects with its text). */
function command(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    let data = Buffer.alloc(0)
    const done = (err: Error | undefined, text?: string) => {
      socket.destroy()
      if (err) reject(err)
      else resolve(text!)
    }
    socket.setTimeout(10_000, () => done(new Error('no answer from the temporary redis-server')))
    socket.once('error', (err) => done(err))
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      const end = data.indexOf('\r\n')
      if (end === -1) return
      const head = data.subarray(0, end).toString('utf8')
      if (head.startsWith('-')) return done(new Error(head.slice(1)))
      if (head.startsWith('+')) return done(undefined, head.slice(1))
      const length = Number(head.slice(1))
      if (data.length >= end + 2 + length) done(undefined, data.subarray(end + 2, end + 2 + length).toString('utf8'))
    })
    socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(''))
  })
}

/** Starts a server on `<dir>/<file>` and waits until it loaded it. */
export async function startTemporaryRedisServer(dir: string, file: string, signal: AbortSignal): Promise<TemporaryRedisServer> {
  const binary = await findExecutable(['redis-server'], searchPath)
  if (!binary) throw new Error('a drill of a redis source needs redis-server to load the RDB (Debian: apt-get install redis-server)')
  const port = await freePort()
  const log = join(dir, 'redis.log')
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', file, '--save', '', '--appendonly', 'no']
  args.push('--replicaof', '127.0.0.1', '1', '--logfile', log, '--daemonize', 'no', '--protected-mode', 'yes')
  const child: ChildProcess = spawnOwned(binary, args, { stdio: 'ignore' })
  const stop = () => killScratchServer(child)
  const keyspace = async () => {
    const keys: Record<string, number> = {}
    for (const match of (await command(port, ['INFO', 'keyspace'])).matchAll(/^(db\d+):keys=(\d+)/gm)) keys[match[1]!] = Number(match[2])
    return keys
  }
  try {
    await recordScratchServer(dir, child)
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted()
      if (child.exitCode !== null || child.signalCode !== null || attempt >= 3000) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        const lines = (await readFile(log, 'utf8').catch(() => ''))
          .trim()
          .split('\n')
          .filter((line) => / [#*] /.test(line))
          .slice(-3)
          .map((line) => line.replace(/^\d+:\w \d+ \w+ \d+ [\d:.]+ [#*-] /, ''))
        throw new Error(`redis-server did not load ${file}: ${lines.join(' | ') || '(no log)'}`)
      }
      const info = await command(port, ['INFO', 'persistence']).catch(() => '')
      if (/^loading:0/m.test(info)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return { port, keyspace, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
