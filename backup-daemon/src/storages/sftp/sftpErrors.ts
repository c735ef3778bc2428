/**
 * @module storages/sftp/sftpErrors
 * How the `sftp` storage classifies its errors, without loading ssh2 (the storage itself is loaded
 * on first use). SFTP status errors carry the protocol's numeric `code` (2 = no such file); ssh2's
 * connection errors carry a `level` (`client-socket`, `client-timeout`, ...).
 */
import { isNetworkError } from '../remote/isNetworkError.js'

/** SSH_FX_NO_SUCH_FILE. */
const noSuchFile = 2
/** SSH_FX_NO_CONNECTION and SSH_FX_CONNECTION_LOST. */
const connectionCodes = new Set([6, 7])

/** The server's host key is unknown, changed or revoked: never retried, never accepted silently. */
export class HostKeyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'HostKeyError'
  }
}

/** The connection ended (or was never there) while calls were in flight. */
export class SftpConnectionError extends Error {
  readonly retryable = true
  constructor(message: string) {
    super(message)
    this.name = 'SftpConnectionError'
  }
}

export function isSftpNotExist(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === noSuchFile
}

export function isSftpRetryable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false
  const e = err as { code?: unknown; level?: unknown; message?: unknown; name?: unknown }
  // By name, not instanceof: this module is loaded eagerly, the storage lazily, and a loader (tsx)
  // may give a dynamically imported module its own instance of this file and its classes.
  if (e.name === 'HostKeyError') return false
  if (e.name === 'SftpConnectionError') return true
  if (typeof e.code === 'number') return connectionCodes.has(e.code)
  if (e.level === 'client-socket' || e.level === 'client-timeout') return true
  // ssh2 fails every request in flight with this when the channel or connection closes under it.
  if (e.message === 'No response from server') return true
  return isNetworkError(err)
}
