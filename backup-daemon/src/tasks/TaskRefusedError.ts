/**
 * @module tasks/TaskRefusedError
 * A restore or verify that is refused before anything runs or is written: the server answers it as a
 * Problem with `status` (400 bad target, 404 snapshot not listed, 409 something already runs).
 */
import { EngineError } from '../runs/errors.js'

export class TaskRefusedError extends EngineError {
  override name = 'TaskRefusedError'
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message)
  }
}
