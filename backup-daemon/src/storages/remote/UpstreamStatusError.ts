/**
 * @module storages/remote/UpstreamStatusError
 * An HTTP storage service answered with a non-2xx status. The message never holds credentials; the
 * backend that threw it decides whether it is worth retrying (`transient`: 5xx, 429, 408).
 */
export class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'UpstreamStatusError'
  }

  get transient(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408
  }
}
