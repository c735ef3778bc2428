/**
 * @module logging/devAppLogger
 * The CMS's console log. Payload logs every error a request ends with, stack and all, at `error` unless its
 * `loggingLevels` name the error's class: a wrong password or an invalid field printed twenty lines each. Here an
 * error that is the client's (status below 500) is one line at `info`, its stack at `debug`
 * (`PAYLOAD_LOG_LEVEL=debug` shows it); a server error keeps its stack at `error`.
 */
import { defaultLoggerOptions, type Config } from 'payload'

type LogArgs = [unknown, ...unknown[]]
interface Logger {
  debug(obj: object): void
  info(msg: string): void
}

/** A request error as Payload's errors carry it: `name`, `message` and the HTTP `status`. */
function clientError(value: unknown): { name: string; message: string; status: number } | undefined {
  const err = value && typeof value === 'object' && 'err' in value ? (value as { err: unknown }).err : undefined
  if (!err || typeof err !== 'object') return undefined
  const { name, message, status } = err as { name?: unknown; message?: unknown; status?: unknown }
  return typeof status === 'number' && status < 500 ? { name: String(name), message: String(message), status } : undefined
}

export const devAppLogger: Config['logger'] = {
  destination: defaultLoggerOptions,
  options: {
    level: process.env.PAYLOAD_LOG_LEVEL || 'info',
    hooks: {
      logMethod(this: Logger, args: LogArgs, method: (...a: unknown[]) => void, level: number) {
        const err = level >= 50 ? clientError(args[0]) : undefined
        if (!err) return method.apply(this, args)
        this.debug(args[0] as object)
        this.info(`${err.name} (${err.status}): ${err.message}`)
      },
    },
  },
}
