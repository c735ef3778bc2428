/**
 * @module sources/redis/syncRdb
 * A live RDB snapshot of a Redis server over the replication protocol, as `redis-cli --rdb` takes
 * it: connect, `AUTH [username] password`, `REPLCONF rdb-only 1` (Redis 7: the server keeps no
 * replication state for us; older servers refuse it, which is fine), `SYNC` (or `PSYNC ? -1` when an
 * ACL allows only that). The server forks,
 * writes a point-in-time RDB and answers `$<length>\r\n` (after `\n` keep-alives while it works)
 * followed by exactly that many bytes; a diskless server may answer `$EOF:<40-byte mark>\r\n` and
 * end the payload with the mark instead. Spoken in Node rather than through redis-cli: the bytes
 * stream straight into the archive (with their size known up front, no temporary file) and the
 * password never leaves this process.
 */
import { connect, type Socket } from 'node:net'
import { PassThrough, type Readable } from 'node:stream'

export interface RdbConnection {
  host: string
  port: number
  socket?: string
  username?: string
  password?: string
}

export interface RdbTransfer {
  /** Bytes of the RDB payload when the server announced them (disk-based sync), else undefined. */
  size?: number
  /** The RDB bytes, exactly; fails when the connection ends early. Destroying it closes the connection. */
  body: Readable
}

/** Silence from the server for this long (no keep-alive, no answer) before the payload fails the transfer. */
const idleTimeoutMs = 60_000
const eofMarkLength = 40

/** `*N\r\n$len\r\narg\r\n...`: one command in RESP. */
function command(...args: string[]): Buffer {
  const parts = [`*${args.length}\r\n`]
  for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`)
  return Buffer.from(parts.join(''))
}

/** Where a connection goes, for messages (never with credentials). */
export function describeRedis(connection: Pick<RdbConnection, 'host' | 'port' | 'socket'>): string {
  return connection.socket ?? `${connection.host}:${connection.port}`
}

/**
 * Starts the transfer; resolves once the server announced the payload (the RDB is ready), with the
 * body not yet read. Rejects with the server's error (`WRONGPASS`, `NOPERM`...) or a connection error.
 */
export async function syncRdb(connection: RdbConnection, signal: AbortSignal): Promise<RdbTransfer> {
  signal.throwIfAborted()
  const where = describeRedis(connection)
  const socket: Socket = connection.socket ? connect({ path: connection.socket }) : connect({ host: connection.host, port: connection.port })
  socket.setTimeout(idleTimeoutMs)
  let buffered: Buffer = Buffer.alloc(0)
  let failure: Error | undefined
  let wake: (() => void) | undefined
  const fail = (err: Error) => {
    failure ??= err
    wake?.()
  }
  const onData = (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk
    wake?.()
  }
  const onAbort = () => {
    fail(signal.reason as Error)
    socket.destroy()
  }
  socket.on('data', onData)
  socket.on('error', (err) => fail(new Error(`redis at ${where}: ${err.message}`)))
  socket.on('timeout', () => {
    fail(new Error(`redis at ${where}: no answer for ${idleTimeoutMs / 1000} s`))
    socket.destroy()
  })
  socket.on('close', () => fail(new Error(`redis at ${where}: connection closed`)))
  signal.addEventListener('abort', onAbort, { once: true })

  /** The next `\n`-terminated line (without `\r\n`), waiting for more bytes as needed. */
  const readLine = async (): Promise<string> => {
    for (;;) {
      const end = buffered.indexOf(0x0a)
      if (end >= 0) {
        const line = buffered.subarray(0, end).toString('utf8').replace(/\r$/, '')
        buffered = buffered.subarray(end + 1)
        return line
      }
      if (failure) throw failure
      await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
    }
  }
  const reply = async (what: string): Promise<string> => {
    const line = await readLine()
    if (line.startsWith('-')) throw new Error(`redis at ${where}: ${what} failed: ${line.slice(1)}`)
    return line
  }

  try {
    if (connection.password !== undefined && connection.password !== '') {
      socket.write(connection.username ? command('AUTH', connection.username, connection.password) : command('AUTH', connection.password))
      await reply('AUTH')
    }
    socket.write(command('REPLCONF', 'rdb-only', '1'))
    // An old server or an ACL without REPLCONF says no: the snapshot works without it (as redis-cli).
    await readLine().then((line) => {
      if (failure) throw failure
      return line
    })
    /** The next line that is not a keep-alive (empty lines while the server writes the snapshot). */
    const answer = async () => {
      let line = ''
      while (line === '') line = await readLine()
      return line
    }
    socket.write(command('SYNC'))
    let header = await answer()
    if (header.startsWith('-NOPERM')) {
      // An ACL may grant PSYNC but not SYNC (the original's docs suggest `+psync`): a full resync asked
      // with PSYNC sends the same snapshot after a `+FULLRESYNC <replid> <offset>` line.
      socket.write(command('PSYNC', '?', '-1'))
      const resync = await answer()
      if (resync.startsWith('-')) throw new Error(`redis at ${where}: SYNC failed: ${header.slice(1)}; PSYNC failed: ${resync.slice(1)}`)
      if (!resync.startsWith('+FULLRESYNC')) throw new Error(`redis at ${where}: unexpected answer to PSYNC: ${resync.slice(0, 80)}`)
      header = await answer()
    }
    if (header.startsWith('-')) throw new Error(`redis at ${where}: SYNC failed: ${header.slice(1)}`)
    if (!header.startsWith('$')) throw new Error(`redis at ${where}: unexpected answer to SYNC: ${header.slice(0, 80)}`)
    const eofMark = header.startsWith('$EOF:') ? header.slice(5) : undefined
    if (eofMark !== undefined && eofMark.length !== eofMarkLength) throw new Error(`redis at ${where}: bad EOF mark in ${header.slice(0, 80)}`)
    const size = eofMark === undefined ? Number(header.slice(1)) : undefined
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) throw new Error(`redis at ${where}: bad payload length in ${header.slice(0, 80)}`)
    socket.off('data', onData)
    signal.removeEventListener('abort', onAbort)
    // From here the archive sets the pace (the socket pauses while a slow storage catches up), so
    // silence is no longer a failure; TCP keep-alives still find a peer that went away.
    socket.setTimeout(0)
    socket.setKeepAlive(true, 30_000)
    return { size, body: payload(socket, buffered, { size, eofMark, where, signal }) }
  } catch (err) {
    signal.removeEventListener('abort', onAbort)
    socket.destroy()
    throw err
  }
}

/** The payload bytes as a stream with backpressure (the socket pauses while the archive is busy). */
function payload(socket: Socket, first: Buffer, options: { size?: number; eofMark?: string; where: string; signal: AbortSignal }): Readable {
  const { size, where, signal } = options
  const mark = options.eofMark === undefined ? undefined : Buffer.from(options.eofMark)
  const body = new PassThrough({ highWaterMark: 1 << 20 })
  let received = 0
  let held: Buffer = Buffer.alloc(0)
  let done = false
  const finish = () => {
    done = true
    cleanup()
    body.end()
    socket.destroy()
  }
  const push = (data: Buffer) => {
    if (data.length && !body.write(data)) {
      socket.pause()
      body.once('drain', () => socket.resume())
    }
  }
  const take = (chunk: Buffer) => {
    if (done) return
    if (mark) {
      const all = held.length ? Buffer.concat([held, chunk]) : chunk
      const at = all.indexOf(mark)
      if (at >= 0) {
        push(all.subarray(0, at))
        finish()
        return
      }
      const keep = Math.min(all.length, mark.length - 1)
      push(all.subarray(0, all.length - keep))
      held = Buffer.from(all.subarray(all.length - keep))
      return
    }
    const part = chunk.subarray(0, size! - received)
    received += part.length
    push(part)
    if (received === size) finish()
  }
  const onError = (err: Error) => {
    if (done) return
    done = true
    cleanup()
    body.destroy(signal.aborted ? (signal.reason as Error) : err)
    socket.destroy()
  }
  const onClose = () => onError(new Error(`redis at ${where}: connection closed after ${received}${size === undefined ? '' : ` of ${size}`} bytes of the RDB`))
  const onSocketError = (err: Error) => onError(new Error(`redis at ${where}: ${err.message}`))
  const onAbort = () => onError(signal.reason as Error)
  const cleanup = () => {
    socket.off('data', take)
    socket.off('close', onClose)
    socket.off('error', onSocketError)
    signal.removeEventListener('abort', onAbort)
  }
  socket.on('data', take)
  socket.on('close', onClose)
  socket.on('error', onSocketError)
  signal.addEventListener('abort', onAbort, { once: true })
  // The consumer gave up (the archive failed elsewhere): close the connection.
  body.on('close', () => {
    if (!done) onError(new Error('closed by the reader'))
  })
  if (size === 0) finish()
  else if (first.length) take(first)
  return body
}
