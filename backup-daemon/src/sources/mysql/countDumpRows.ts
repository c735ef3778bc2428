/**
 * @module sources/mysql/countDumpRows
 * The tables and row counts a `mysql`/`mariadb` dump holds, counted from the dump's own bytes as they
 * stream into the archive (`MysqlSource.recorded`, checked by a restore drill, `drill.ts`).
 *
 * Why from the dump and not `SELECT COUNT(*)` on the server: `--single-transaction` reads one
 * consistent snapshot, but no other session can open the very same snapshot. Counting in a second
 * session started just before or after the dump's is exact only when nobody writes in between; making it
 * exact takes `FLUSH TABLES WITH READ LOCK` held until the dump's transaction started (the RELOAD
 * privilege, and every writer of the server stopped meanwhile). The dump's `INSERT` statements are what
 * the dump's transaction saw, so counting their rows is exact by construction, needs no privilege and
 * no second connection. What the drill then proves: the archived dump loads every table and every row
 * the dump held (a truncated or altered dump, or a restore that drops rows, shows as a difference).
 *
 * The scanner reads the SQL as the client does (strings, quoted names, comments, `/*!…*\/` executable
 * comments, `DELIMITER`): a `USE` sets the database (an all-databases dump), `CREATE TABLE` records a
 * table with 0 rows, `DROP TABLE` forgets it (a view's stand-in table), and each top-level `( … )` after
 * `VALUES` of an `INSERT INTO` is one row.
 */
import { Transform, type TransformCallback } from 'node:stream'

type State = 'code' | 'single' | 'double' | 'backtick' | 'line-comment' | 'block-comment'

/** Enough of a statement's start (code only) to read its kind, table and the `VALUES` keyword. */
const headLimit = 4096
/** Characters kept for the next chunk so a token split between chunks (`/*!`, `-- `, a delimiter) is seen whole. */
const lookahead = 16

const name = '`((?:[^`]|``)+)`'
const insertHead = new RegExp(`^(?:INSERT|REPLACE)\\s+(?:IGNORE\\s+)?INTO\\s+(?:${name}\\.)?${name}`, 'i')
const createHead = new RegExp(`^CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(?:${name}\\.)?${name}`, 'i')
const dropHead = new RegExp(`^DROP\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?(?:${name}\\.)?${name}`, 'i')
const useHead = new RegExp(`^USE\\s+${name}`, 'i')
const unquote = (quoted: string) => quoted.replace(/``/g, '`')
/** Per quote kind, what can end or escape inside it. */
const nextStringStop: Record<string, RegExp> = { single: /['\\]/g, double: /["\\]/g, backtick: /`/g }

export interface DumpRowCounter {
  /** Passes the dump's bytes through unchanged, counting as they go. */
  stream: Transform
  /** `{ "db.table": rows }` once the stream ended (every byte seen); undefined before. */
  tables(): Record<string, number> | undefined
}

/** `database`: the dump's database when it names none itself (a single-database dump). */
export function countDumpRows(database: string | undefined): DumpRowCounter {
  const tables: Record<string, number> = {}
  let current = database
  let state: State = 'code'
  let escaped = false
  let executableComment = false
  let delimiter = ';'
  let head = ''
  let depth = 0
  /** The current statement's table key while it is an INSERT whose `VALUES` was reached. */
  let inserting: string | undefined
  let classified = false
  let carry = ''
  let done = false
  let failed = false
  const guarded = (work: () => void) => {
    try {
      work()
    } catch {
      failed = true
    }
  }

  const key = (db: string | undefined, table: string) => `${db === undefined ? (current ?? '') : unquote(db)}.${unquote(table)}`
  const endStatement = () => {
    if (!classified) classifyEnd()
    head = ''
    depth = 0
    inserting = undefined
    classified = false
  }
  /** A statement without rows, read whole: what it does to the record. */
  const classifyEnd = () => {
    const words = head.trimStart()
    let m = createHead.exec(words)
    if (m) tables[key(m[1], m[2]!)] ??= 0
    else if ((m = dropHead.exec(words))) delete tables[key(m[1], m[2]!)]
    else if ((m = useHead.exec(words))) current = unquote(m[1]!)
    classified = true
  }
  /** A `(` at depth 0: the start of a row when the statement is an INSERT past its `VALUES`. */
  const openParen = () => {
    if (inserting === undefined && !classified) {
      const words = head.trimStart()
      const m = insertHead.exec(words)
      if (m && /\bVALUES\s*$/i.test(words)) {
        inserting = key(m[1], m[2]!)
        classified = true
      }
    }
    if (inserting !== undefined) tables[inserting] = (tables[inserting] ?? 0) + 1
  }

  const read = (text: string, final: boolean) => {
    const end = final ? text.length : Math.max(0, text.length - lookahead)
    let i = 0
    for (; i < end; i++) {
      const c = text[i]!
      if (state === 'code') {
        if (head.trim() === '' && (c === 'd' || c === 'D') && /^delimiter\s/i.test(text.slice(i, i + 10))) {
          const stop = text.indexOf('\n', i)
          if (stop === -1 && !final) break
          const command = text.slice(i, stop === -1 ? text.length : stop)
          delimiter = command.trim().split(/\s+/)[1] ?? ';'
          i += command.length - 1
          continue
        }
        if (c === delimiter[0] && text.startsWith(delimiter, i)) {
          endStatement()
          i += delimiter.length - 1
          continue
        }
        if (c === '\\' && text[i + 1] === '-') {
          // mariadb-dump's first line `/*M!999999\- enable the sandbox mode *\/`: a client command to its line end.
          const stop = text.indexOf('\n', i)
          if (stop === -1 && !final) break
          i = (stop === -1 ? text.length : stop) - 1
          executableComment = false
          continue
        }
        if (c === '/' && text[i + 1] === '*' && (text[i + 2] === '!' || (text[i + 2] === 'M' && text[i + 3] === '!'))) {
          const marker = /^\/\*M?!\d*/.exec(text.slice(i, i + lookahead))![0]
          executableComment = true
          if (head.length < headLimit) head += ' '
          i += marker.length - 1
          continue
        }
        if (c === '*' && text[i + 1] === '/' && executableComment) {
          executableComment = false
          if (head.length < headLimit) head += ' '
          i += 1
          continue
        }
        if (c === "'") state = 'single'
        else if (c === '"') state = 'double'
        else if (c === '`') state = 'backtick'
        else if (c === '#' || (c === '-' && text[i + 1] === '-' && /\s/.test(text[i + 2] ?? ' '))) {
          state = 'line-comment'
          continue
        } else if (c === '/' && text[i + 1] === '*') {
          state = 'block-comment'
          i += 1
          continue
        } else if (c === '(') {
          if (depth === 0) openParen()
          depth++
        } else if (c === ')') depth = Math.max(0, depth - 1)
        // Rows are counted from here on; the head is only needed until the statement is classified.
        if (!classified && head.length < headLimit) head += c
      } else if (state === 'line-comment') {
        if (c === '\n') state = 'code'
      } else if (state === 'block-comment') {
        if (c === '/' && text[i - 1] === '*') state = 'code'
      } else {
        if (classified && !escaped) {
          // Inside a string of a statement already read (a row's value: most of a dump's bytes): jump to
          // the next character that can end it or escape.
          const stop = nextStringStop[state]!
          stop.lastIndex = i
          const next = stop.exec(text)
          if (!next || next.index >= end) {
            i = end - 1
            continue
          }
          i = next.index
        }
        const c = text[i]!
        if (escaped) escaped = false
        else if (c === '\\' && state !== 'backtick') escaped = true
        else if (c === (state === 'single' ? "'" : state === 'double' ? '"' : '`')) state = 'code'
        if (!classified && head.length < headLimit) head += c
      }
    }
    carry = text.slice(i)
  }

  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      // latin1: one character per byte; the chunk itself goes on untouched. A count that fails never fails
      // the backup: nothing is recorded then.
      if (!failed) guarded(() => read(carry + chunk.toString('latin1'), false))
      callback(null, chunk)
    },
    flush(callback: TransformCallback) {
      guarded(() => {
        read(carry, true)
        if (head.trim() !== '') endStatement()
      })
      done = !failed
      callback()
    },
  })
  return { stream, tables: () => (done ? { ...tables } : undefined) }
}
