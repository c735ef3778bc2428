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

/** No storage that answered holds the snapshot, and some did not answer: not "not found", but not known either (404, saying which). */
export class SnapshotUnreachableError extends SnapshotNotFoundError {
  override name = 'SnapshotUnreachableError'
  constructor(job: string, filename: string, unreadable: readonly string[]) {
    super(job, filename)
    this.message = `snapshot "${filename}" of job "${job}" is on no storage that answered, and ${unreadable.join('; ')}`
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

/**
 * A listed snapshot whose every copy failed its last verify (`repository/damageLedger`): not served as a
 * download (409) until a verify passes again, since its bytes are known not to be what was written.
 */
export class SnapshotVerifyFailedError extends EngineError {
  override name = 'SnapshotVerifyFailedError'
  constructor(
    readonly filename: string,
    storages: readonly string[],
    damage: { reason: string; at: string },
  ) {
    super(
      `snapshot "${filename}" failed its last verify (${damage.at}) on every storage holding it (${storages.join(', ')}): ${damage.reason}; ` +
        'it is not served until a verify of it passes',
    )
  }
}
