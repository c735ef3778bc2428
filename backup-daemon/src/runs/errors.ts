/**
 * @module runs/errors
 * The failures of runs and tasks that callers act on (in `runs/`, below both the engine and `tasks/`,
 * which throw them). The server maps each to one HTTP status; the CLI to an
 * exit code. Messages are safe to show: they never carry secrets.
 */

export class EngineError extends Error {
  override name = 'EngineError'
}

export class JobNotFoundError extends EngineError {
  override name = 'JobNotFoundError'
  constructor(readonly job: string) {
    super(`job "${job}" not found`)
  }
}

export class JobBusyError extends EngineError {
  override name = 'JobBusyError'
  constructor(readonly job: string) {
    super(`job "${job}" is already running`)
  }
}

export class NoRunInFlightError extends EngineError {
  override name = 'NoRunInFlightError'
  constructor(readonly job: string) {
    super(`job "${job}" has no run in progress`)
  }
}

export class SnapshotNotFoundError extends EngineError {
  override name = 'SnapshotNotFoundError'
  constructor(
    readonly job: string,
    readonly filename: string,
  ) {
    super(`snapshot "${filename}" not found for job "${job}"`)
  }
}

export class FullDownloadUnsupportedError extends EngineError {
  override name = 'FullDownloadUnsupportedError'
  constructor(readonly filename: string) {
    super(`the storage of "${filename}" cannot stream a split set as one download; download its parts one by one`)
  }
}

export class EngineStoppingError extends EngineError {
  override name = 'EngineStoppingError'
  constructor() {
    super('the daemon is shutting down and accepts no new runs')
  }
}

/**
 * A listed split set that cannot be whole (a part missing, sizes not adding up): never served as one
 * download (its listing says `fullDownloadSupported: false`, like a set the storage cannot stream, so
 * the server answers it the same way); its parts still download one by one.
 */
export class SnapshotDamagedError extends FullDownloadUnsupportedError {
  override name = 'SnapshotDamagedError'
  constructor(
    filename: string,
    readonly reason: string,
  ) {
    super(filename)
    this.message = `snapshot "${filename}" is damaged (${reason}): it cannot be downloaded whole; download its parts one by one`
  }
}
