/**
 * @module repository/archives/checkedStream
 * A download passed through as it is read, its sha256 kept: at the end it must be the manifest's, or the
 * stream fails instead of ending, so the client's transfer is cut off (an HTTP body shorter than its
 * Content-Length, or a chunked body without its last chunk) rather than completed with damaged bytes.
 */
import { createHash } from 'node:crypto'
import { Transform, type Readable } from 'node:stream'

export function checkedStream(source: Readable, sha256: string, what: string): Readable {
  const hash = createHash('sha256')
  const check = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk)
      callback(null, chunk)
    },
    flush(callback) {
      const actual = hash.digest('hex')
      callback(actual === sha256 ? null : new Error(`${what}: the bytes read have sha256 ${actual}, the manifest says ${sha256}: the stored copy is damaged`))
    },
  })
  source.on('error', (err) => check.destroy(err))
  check.on('close', () => source.destroy())
  return source.pipe(check)
}
