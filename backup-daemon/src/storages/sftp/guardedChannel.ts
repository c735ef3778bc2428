/**
 * @module storages/sftp/guardedChannel
 * An SFTP channel on which every request ends. ssh2 never answers a request made after its channel
 * closed (it is queued where nothing reads it), and a server that stops answering (stopped, a hung disk,
 * a link that died silently) leaves the requests in flight waiting for as long as the TCP connection
 * looks alive. The guard fails a request on a closed channel at once, fails the requests in flight when
 * the channel is lost, and reports a stall when requests wait and none was answered for `timeoutMs`:
 * the deadline follows progress, so a slow but moving upload never trips it.
 */
import type { SFTPWrapper } from 'ssh2'
import { SftpConnectionError } from './sftpErrors.js'

type Callback = (err?: Error | null, ...rest: unknown[]) => void

/** The SFTPWrapper methods that send a request and answer through their last argument. */
const requests = new Set<string | symbol>([
  'open',
  'close',
  'read',
  'write',
  'fstat',
  'stat',
  'lstat',
  'opendir',
  'readdir',
  'mkdir',
  'rmdir',
  'unlink',
  'rename',
  'realpath',
  'setstat',
  'fsetstat',
  'readlink',
  'symlink',
  'ext_openssh_rename',
  'ext_openssh_statvfs',
  'ext_openssh_hardlink',
  'ext_openssh_fsync',
])

/** The server at `where` answered nothing for `ms`. */
export function silenceError(where: string, ms: number): SftpConnectionError {
  return new SftpConnectionError(`no answer from ${where} for ${Math.round(ms / 100) / 10} s`)
}

export interface GuardOptions {
  /** `host:port`, for messages. */
  where: string
  /** A stall: requests wait and none was answered for this long. */
  timeoutMs: number
  /** Called once on a stall (the connection should be closed); the waiting requests have already failed with `error`. */
  onStall(error: SftpConnectionError): void
}

export interface GuardedChannel {
  /** The channel to use: the same methods, each request bound to end. */
  readonly channel: SFTPWrapper
  /** The channel is gone: `error` for every request waiting and every request from now on (the first error stays). */
  lost(error?: Error): void
}

export function guardChannel(sftp: SFTPWrapper, { where, timeoutMs, onStall }: GuardOptions): GuardedChannel {
  const waiting = new Set<{ callback: Callback }>()
  let failure: Error | undefined
  let lastAnswer = Date.now()
  let watch: NodeJS.Timeout | undefined
  const lostError = () => failure ?? new SftpConnectionError(`the SSH connection to ${where} was lost`)

  const lost = (error?: Error) => {
    failure ??= error ?? lostError()
    clearInterval(watch)
    watch = undefined
    for (const entry of [...waiting]) {
      waiting.delete(entry)
      entry.callback(failure)
    }
  }
  const check = () => {
    if (waiting.size === 0 || Date.now() - lastAnswer < timeoutMs) return
    const stall = silenceError(where, timeoutMs)
    lost(stall)
    onStall(stall)
  }

  const channel = new Proxy(sftp, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown
      if (typeof value !== 'function') return value
      if (!requests.has(property)) return value.bind(target) as unknown
      return (...args: unknown[]) => {
        const callback = args.at(-1)
        if (typeof callback !== 'function') return (value as (...a: unknown[]) => unknown).apply(target, args)
        if (failure) return void process.nextTick(callback as Callback, failure)
        const entry = { callback: callback as Callback }
        if (waiting.size === 0) lastAnswer = Date.now()
        waiting.add(entry)
        watch ??= setInterval(check, Math.max(25, timeoutMs / 8)).unref()
        const answered: Callback = (err, ...rest) => {
          // Already failed by the guard (lost, stalled): ssh2's own late "No response from server" is dropped.
          if (!waiting.delete(entry)) return
          lastAnswer = Date.now()
          if (waiting.size === 0) {
            clearInterval(watch)
            watch = undefined
          }
          // ssh2 fails the requests in flight with this bare message when the channel closes.
          entry.callback(err?.message === 'No response from server' ? lostError() : err, ...rest)
        }
        try {
          return (value as (...a: unknown[]) => unknown).apply(target, [...args.slice(0, -1), answered])
        } catch (err) {
          waiting.delete(entry)
          throw err
        }
      }
    },
  })
  return { channel, lost }
}
