/**
 * @module test/support/redisServer
 * A throwaway Redis server from Debian's `redis-server`: `redis-server --port <free> --save ''
 * --dir <tmp>` bound to 127.0.0.1 with a unix socket in the same folder, `requirepass` for the
 * default user and an ACL user `backup` allowed to take snapshots (`SYNC`, `REPLCONF`) and nothing
 * else. Also starts a server on a given RDB file, to check what a restore gives back.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './freePort.js'
import { stopServer } from './stopServer.js'

const run = promisify(execFile)
/** The machine's temp folder when this module loaded (tests may point TMPDIR elsewhere later). */
const baseTmp = tmpdir()

export interface RedisServer {
  dir: string
  port: number
  socket: string
  /** The default user's password (`requirepass`). */
  password: string
  /** An ACL user that may only authenticate and take snapshots. */
  aclUser: { username: string; password: string }
  version: string
  pid: number
  /** Runs one redis-cli command as the default user; returns its raw output. */
  cli(...args: string[]): Promise<string>
  stop(): Promise<void>
}

export interface RedisStartOptions {
  /** Load this RDB at start (`--dir` + `--dbfilename`), as a restored server does. */
  rdb?: { dir: string; file: string }
  /** @default true */
  password?: boolean
}

export async function startRedisServer(options: RedisStartOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(baseTmp, 'bd-redis-'))
  const port = await freePort()
  const socket = join(dir, 'redis.sock')
  const password = 'Redis-test-Secret-42'
  const aclUser = { username: 'backup', password: 'Acl-test-Secret-43' }
  const usePassword = options.password ?? true
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--unixsocket',
    socket,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    options.rdb?.dir ?? dir,
    '--dbfilename',
    options.rdb?.file ?? 'dump.rdb',
    '--logfile',
    join(dir, 'redis.log'),
    '--daemonize',
    'no',
  ]
  if (usePassword) args.push('--requirepass', password)
  const server: ChildProcess = spawn('/usr/bin/redis-server', args, { stdio: 'ignore' })
  const env = { ...process.env, REDISCLI_AUTH: usePassword ? password : '' }
  const cli = async (...command: string[]) =>
    (await run('redis-cli', ['-s', socket, '--no-auth-warning', ...command], { env, maxBuffer: 64 << 20 })).stdout.trim()
  let ready = false
  for (let attempt = 0; attempt < 200 && server.exitCode === null; attempt++) {
    if ((await cli('PING').catch(() => '')) === 'PONG') {
      ready = true
      break
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  if (!ready) {
    await stopServer(server, dir, 'SIGKILL')
    throw new Error('redis-server did not start')
  }
  await cli('ACL', 'SETUSER', aclUser.username, 'on', `>${aclUser.password}`, '+sync', '+replconf', '+ping')
  const version = (await cli('INFO', 'server')).match(/redis_version:(\S+)/)?.[1] ?? 'unknown'
  return {
    dir,
    port,
    socket,
    password,
    aclUser,
    version,
    pid: server.pid!,
    cli,
    stop: () => stopServer(server, dir, 'SIGKILL'),
  }
}
