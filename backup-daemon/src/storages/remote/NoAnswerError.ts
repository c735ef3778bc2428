/**
 * @module storages/remote/NoAnswerError
 * A server that went silent: no byte came back for the storage's `timeout` (a stopped process, a
 * dead link, a stuck proxy). Worded like the sftp storage's, so every storage says it the same way:
 * `no answer from http://127.0.0.1:9000 for 60 s`. Its `code` is `ETIMEDOUT`, so the backends'
 * `isRetryable` (through `isNetworkError`) count it as transient.
 */
export class NoAnswerError extends Error {
  readonly code = 'ETIMEDOUT'

  constructor(where: string, ms: number, options?: ErrorOptions) {
    super(`no answer from ${where} for ${Math.round(ms / 100) / 10} s`, options)
    this.name = 'NoAnswerError'
  }
}
