/**
 * @module sources/redis/RedisSource
 * The `redis` source: one archive entry `<name>/dump.rdb`. Live (`host`/`port` or `socket`): a
 * point-in-time RDB snapshot taken over the replication protocol (`syncRdb`), streamed into the
 * archive with its size known, so nothing touches the disk on our side. With `path`: a copy of that
 * RDB file (Redis replaces its dump file by renaming a new one over it, so an open file never changes).
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { Transform, type Readable } from 'node:stream'
import { countingStream, formatBytes } from '../support/countingStream.js'
import { oneByOne } from '../support/oneByOne.js'
import type { SourceRecord } from '../../tar/snapshotRecord.js'
import type { Source, SourceContext, SourceEntry } from '../types.js'
import { countRdbKeys, type RdbKeyCounter } from './countRdbKeys.js'
import type { RedisSourceConfig } from './schema.js'
import { describeRedis, syncRdb } from './syncRdb.js'

/** Every RDB file starts with these bytes (then a 4-digit version). */
const rdbMagic = Buffer.from('REDIS')

/** Fails the stream when its first bytes are not an RDB header (a wrong file, a proxy's error page). */
function checkRdbMagic(label: string): Transform {
  let head = Buffer.alloc(0)
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (head.length < rdbMagic.length) {
        head = Buffer.concat([head, chunk]).subarray(0, rdbMagic.length)
        if (!rdbMagic.subarray(0, head.length).equals(head)) return callback(new Error(`${label} is not an RDB file (it does not start with "REDIS")`))
      }
      callback(null, chunk)
    },
    flush(callback) {
      callback(head.length < rdbMagic.length ? new Error(`${label} is not an RDB file (too short)`) : null)
    },
  })
}

function checked(input: Readable, label: string): Readable {
  const check = checkRdbMagic(label)
  input.on('error', (err) => check.destroy(err))
  check.on('close', () => input.destroy())
  return input.pipe(check)
}

export class RedisSource implements Source {
  readonly type = 'redis'
  readonly name: string
  /** Counts the keys per database of the RDB as it streams (`countRdbKeys` says why from the bytes). */
  private counter: RdbKeyCounter | undefined

  constructor(
    private readonly config: RedisSourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
  }

  private log(message: string): void {
    this.context.log('info', `source "${this.name}": ${message}`)
  }

  /** Keys per database of the archived RDB, for a restore drill; undefined unless it was read to its end. */
  recorded(): SourceRecord | undefined {
    const keys = this.counter?.keys()
    const why = this.counter?.why()
    if (why) this.context.log('warn', `source "${this.name}": keys per database not recorded for restore drills: ${why}`)
    return keys && { keys }
  }

  /** `input` through a new key counter. */
  private counted(input: Readable): Readable {
    const counter = (this.counter = countRdbKeys())
    input.once('error', (err) => counter.stream.destroy(err))
    counter.stream.once('close', () => input.destroy())
    return input.pipe(counter.stream)
  }

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return oneByOne(this.entries(signal))
  }

  /** The folder, then the dump (a copy of `path`, or what the server sends through SYNC). */
  private async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    signal.throwIfAborted()
    const mtime = new Date()
    const entryName = `${this.name}/dump.rdb`
    if (this.config.path) {
      const path = this.config.path
      const info = await stat(path)
      if (!info.isFile()) throw new Error(`source "${this.name}": ${path} is not a file`)
      this.log(`copying ${path} (${formatBytes(info.size)})`)
      yield { name: this.name, type: 'directory', mode: 0o755, mtime }
      yield {
        name: entryName,
        type: 'file',
        mode: 0o600,
        mtime: info.mtime,
        size: info.size,
        open: (s) => this.counted(checked(createReadStream(path, { signal: s }), path)),
      }
      return
    }
    const where = describeRedis(this.config)
    const started = Date.now()
    this.log(`SYNC from redis at ${where}`)
    const transfer = await syncRdb(this.config, signal).catch((err: Error) => {
      throw signal.aborted ? signal.reason : new Error(`source "${this.name}": ${err.message}`, { cause: err })
    })
    let opened = false
    try {
      this.log(`server snapshot ready after ${Date.now() - started} ms${transfer.size === undefined ? '' : `: ${formatBytes(transfer.size)}`}`)
      yield { name: this.name, type: 'directory', mode: 0o755, mtime }
      yield {
        name: entryName,
        type: 'file',
        mode: 0o600,
        mtime,
        size: transfer.size,
        open: () => {
          opened = true
          return countingStream(this.counted(checked(transfer.body, `the SYNC answer of ${where}`)), (bytes) =>
            this.log(`dump.rdb done, ${formatBytes(bytes)} in ${Date.now() - started} ms`),
          )
        },
      }
    } finally {
      // Never read (the run failed before this entry): close the connection.
      if (!opened) transfer.body.destroy()
    }
  }
}
