/**
 * @module sources/redis/countRdbKeys
 * The keys per database an RDB holds, counted from its bytes as they stream into the archive
 * (`RedisSource.recorded`, checked by a restore drill, `drill.ts`). Exact by construction: the RDB is one
 * point-in-time snapshot (the server's fork), and every key in it is counted, expired ones included (the
 * drill's server loads as a replica, which keeps them too). `INFO keyspace` read beside the `SYNC` is not
 * exact: writes land between the fork and the answer.
 *
 * A skimmer, not a loader: it reads the opcodes, key names and lengths and skips every value's bytes
 * (strings, LZF, every list/set/hash/zset encoding, streams, module values with their typed opcodes).
 * A value it cannot skip (a pre-GA module or function encoding) stops the count: nothing is recorded,
 * and the reason is kept (`why`).
 */
import { Transform, type TransformCallback } from 'node:stream'

export interface RdbKeyCounter {
  stream: Transform
  /** `{ db0: 42 }` once the whole RDB went through (to its EOF opcode); undefined otherwise. */
  keys(): Record<string, number> | undefined
  /** Why nothing can be recorded (an encoding the skimmer does not know), when so. */
  why(): string | undefined
}

class Unknown extends Error {}

/** The parser's requests: a number of bytes it needs buffered before going on. */
type Steps = Generator<number, void, void>

export function countRdbKeys(): RdbKeyCounter {
  let buffer: Buffer = Buffer.alloc(0)
  let pos = 0
  /** Bytes to drop as they come (a value's body), without buffering them. */
  let skipping = 0
  const keys: Record<string, number> = {}
  let finished = false
  let why: string | undefined

  function* need(n: number): Steps {
    while (buffer.length - pos < n) yield n
  }
  function* byte(out: { v: number }): Steps {
    yield* need(1)
    out.v = buffer[pos++]!
  }
  /** A length; `special` set for the string encodings (int8/16/32, LZF). */
  function* length(out: { v: number; special?: number }): Steps {
    yield* need(1)
    const first = buffer[pos]!
    const type = first >> 6
    out.special = undefined
    if (type === 0) {
      out.v = first & 0x3f
      pos += 1
    } else if (type === 1) {
      yield* need(2)
      out.v = ((first & 0x3f) << 8) | buffer[pos + 1]!
      pos += 2
    } else if (type === 2) {
      const wide = first === 0x81
      yield* need(wide ? 9 : 5)
      out.v = wide ? Number(buffer.readBigUInt64BE(pos + 1)) : buffer.readUInt32BE(pos + 1)
      pos += wide ? 9 : 5
    } else {
      out.special = first & 0x3f
      out.v = 0
      pos += 1
    }
  }
  function* skip(n: number): Steps {
    const here = Math.min(n, buffer.length - pos)
    pos += here
    skipping += n - here
    if (skipping) yield 0
  }
  function* string(): Steps {
    const len = { v: 0 } as { v: number; special?: number }
    yield* length(len)
    if (len.special === undefined) return yield* skip(len.v)
    if (len.special <= 2) return yield* skip([1, 2, 4][len.special]!)
    if (len.special !== 3) throw new Unknown(`string encoding ${len.special}`)
    const compressed = { v: 0 }
    yield* length(compressed)
    yield* length({ v: 0 })
    yield* skip(compressed.v)
  }
  function* lengthValue(): Steps {
    yield* length({ v: 0 })
  }
  function* times(count: number, each: () => Steps): Steps {
    for (let i = 0; i < count; i++) yield* each()
  }
  function* counted(each: () => Steps): Steps {
    const n = { v: 0 }
    yield* length(n)
    yield* times(n.v, each)
  }
  function* oldDouble(): Steps {
    const n = { v: 0 }
    yield* byte(n)
    if (n.v < 253) yield* skip(n.v)
  }
  function* moduleValue(): Steps {
    // Module type 2 values: typed opcodes up to EOF (0).
    for (;;) {
      const op = { v: 0 }
      yield* length(op)
      if (op.v === 0) return
      if (op.v === 1 || op.v === 2) yield* lengthValue()
      else if (op.v === 3) yield* skip(4)
      else if (op.v === 4) yield* skip(8)
      else if (op.v === 5) yield* string()
      else throw new Unknown(`module opcode ${op.v}`)
    }
  }
  function* stream(type: number): Steps {
    yield* counted(function* () {
      yield* string()
      yield* string()
    })
    yield* times(3, lengthValue)
    if (type >= 19) yield* times(5, lengthValue)
    yield* counted(function* () {
      yield* string()
      yield* times(type >= 19 ? 3 : 2, lengthValue)
      yield* counted(function* () {
        yield* skip(16 + 8)
        yield* lengthValue()
      })
      yield* counted(function* () {
        yield* string()
        yield* skip(type >= 21 ? 16 : 8)
        yield* counted(() => skip(16))
      })
    })
  }
  function* value(type: number): Steps {
    if (type === 0 || (type >= 9 && type <= 13) || type === 16 || type === 17 || type === 20) return yield* string()
    if (type === 1 || type === 2 || type === 14) return yield* counted(string)
    if (type === 3)
      return yield* counted(function* () {
        yield* string()
        yield* oldDouble()
      })
    if (type === 4)
      return yield* counted(function* () {
        yield* string()
        yield* string()
      })
    if (type === 5)
      return yield* counted(function* () {
        yield* string()
        yield* skip(8)
      })
    if (type === 18)
      return yield* counted(function* () {
        yield* lengthValue()
        yield* string()
      })
    if (type === 15 || type === 19 || type === 21) return yield* stream(type)
    if (type === 7) {
      yield* lengthValue()
      return yield* moduleValue()
    }
    throw new Unknown(`value type ${type}`)
  }
  function* parse(): Steps {
    yield* need(9)
    if (buffer.subarray(pos, pos + 5).toString('latin1') !== 'REDIS') throw new Unknown('no RDB header')
    pos += 9
    let db = 'db0'
    for (;;) {
      const op = { v: 0 }
      yield* byte(op)
      if (op.v === 0xff) {
        finished = true
        return
      } else if (op.v === 0xfe) {
        const n = { v: 0 }
        yield* length(n)
        db = `db${n.v}`
      } else if (op.v === 0xfd) yield* skip(4)
      else if (op.v === 0xfc) yield* skip(8)
      else if (op.v === 0xfb) yield* times(2, lengthValue)
      else if (op.v === 0xfa) yield* times(2, string)
      else if (op.v === 0xf9) yield* skip(1)
      else if (op.v === 0xf8) yield* lengthValue()
      else if (op.v === 0xf7) {
        // Module id, when-opcode, when; then the module's typed values.
        yield* times(3, lengthValue)
        yield* moduleValue()
      } else if (op.v === 0xf6) yield* string()
      else {
        yield* string()
        yield* value(op.v)
        keys[db] = (keys[db] ?? 0) + 1
      }
    }
  }

  const parser = parse()
  let step = parser.next()
  const feed = (chunk: Buffer) => {
    if (finished || why) return
    let start = 0
    if (skipping) {
      start = Math.min(skipping, chunk.length)
      skipping -= start
      if (skipping || start === chunk.length) return
    }
    buffer = pos < buffer.length ? Buffer.concat([buffer.subarray(pos), chunk.subarray(start)]) : chunk.subarray(start)
    pos = 0
    try {
      // Runs until the parser needs more bytes than are buffered (or is skipping past the buffer).
      while (!step.done && !skipping && buffer.length - pos >= step.value) step = parser.next()
    } catch (err) {
      // Never fails the backup: the dump is archived as it is, only the count is given up.
      why = err instanceof Unknown ? `the RDB holds ${err.message}, which the key count does not read` : `the key count failed: ${(err as Error).message}`
    }
  }

  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      feed(chunk)
      callback(null, chunk)
    },
  })
  return { stream: transform, keys: () => (finished ? { ...keys } : undefined), why: () => why }
}
