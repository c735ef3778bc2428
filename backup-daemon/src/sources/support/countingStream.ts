/**
 * @module sources/support/countingStream
 * A pass-through that counts the bytes of a source's stream and reports the total to the job log
 * when the stream ended cleanly (a failed or cancelled stream reports nothing: its error does).
 */
import { Transform, type Readable } from 'node:stream'

/** Human-readable byte count for log lines (`12.3 MiB`). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/**
 * Pipes `input` through a counter; `onEnd(bytes)` is called once the whole stream went through.
 * An error of `input` is passed on to the returned stream.
 */
export function countingStream(input: Readable, onEnd: (bytes: number) => void): Readable {
  let bytes = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      callback(null, chunk)
    },
    flush(callback) {
      onEnd(bytes)
      callback()
    },
  })
  input.on('error', (err) => counter.destroy(err))
  // The consumer gave up (the archive failed elsewhere): stop the input too.
  counter.on('close', () => input.destroy())
  return input.pipe(counter)
}
