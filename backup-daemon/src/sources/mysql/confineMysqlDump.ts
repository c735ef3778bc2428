/**
 * @module sources/mysql/confineMysqlDump
 * Keeps a single-database MySQL/MariaDB restore in its target database. The dump is SQL fed to the
 * `mariadb` client, and SQL can switch database: a dump holding `USE shop;` wrote into `shop` while the
 * task said "restored into shop_copy". This transform reads the dump as the client does (strings,
 * quoted names, comments, `DELIMITER`) and refuses, before the client receives it, any statement that
 * leaves the target:
 * - `USE …`, `CREATE|DROP|ALTER DATABASE|SCHEMA …` (also inside `/*!…*\/` comments, which the server
 *   executes);
 * - the client's own commands that switch database or reach outside SQL: `connect`, `use`, `source`,
 *   `system`, `tee`, `pager` by name, and any backslash command (`\u`, `\r`, `\!`, `\.`) outside strings.
 * - dynamic SQL: the words `PREPARE` and `EXECUTE` anywhere in code (outside strings, quoted names and
 *   plain comments; a statement's head, a procedure's or event's body alike), and `CALL`: a statement built
 *   at run time (`SET @q=CONCAT('US','E other'); PREPARE s FROM @q; EXECUTE s`, `EXECUTE IMMEDIATE …`) can
 *   leave the target without naming it, and no dump tool writes them (mysqldump and mariadb-dump quote
 *   every name, so a column called `execute` is not taken for one).
 * The stream then fails naming the statement; what came before it was loaded into the target only.
 *
 * Statements that name another database's tables (`INSERT INTO shop.orders`) switch nothing and are not
 * parsed here: give `restore.databases` a user whose privileges end at the target (README).
 */
import { Transform, type TransformCallback } from 'node:stream'

/** Statement heads (first words, upper-cased) that leave the target database. */
const leaves = [/^USE\b/, /^(CREATE|DROP|ALTER)\s+(DATABASE|SCHEMA)\b/, /^(CONNECT|SOURCE|SYSTEM|TEE|PAGER|CALL)\b/]
/** Words that run SQL built at run time, refused wherever they stand in code. */
const dynamicSql = new Set(['PREPARE', 'EXECUTE'])
const wordChar = /[A-Za-z0-9_$]/
/** Enough of a statement's start to classify it. */
const headLength = 40

export class DumpLeavesDatabaseError extends Error {}

type State = 'code' | 'single' | 'double' | 'backtick' | 'line-comment' | 'block-comment'

/** Characters kept for the next chunk so a token split between chunks (`/*!`, `-- `, a delimiter) is seen whole. */
const lookahead = 16

export function confineMysqlDump(target: string): Transform {
  let state: State = 'code'
  let escaped = false
  let executableComment = false
  let delimiter = ';'
  /** The start of the current statement, code only (comments left out), while it is being classified. */
  let head = ''
  let classified = false
  /** Text of the current statement held back until it is classified. */
  let held = ''
  /** Input not read yet (the end of the last chunk). */
  let carry = ''
  let statements = 0
  let line = 1
  let statementLine = 1
  /** The word being read in code, and the statement's text so far (for the message). */
  let word = ''
  let statementText = ''

  const refuse = (what: string): never => {
    const shown = what.replace(/\s+/g, ' ').trim().slice(0, 60)
    throw new DumpLeavesDatabaseError(
      `the dump's statement ${statements + 1} (line ${statementLine}) leaves database "${target}": ${JSON.stringify(shown)}; ` +
        `the restore stopped before it (only "${target}" was written)`,
    )
  }
  const classify = (final: boolean) => {
    const words = head.trimStart().toUpperCase()
    if (!final && words.length < headLength) return
    if (leaves.some((pattern) => pattern.test(words))) refuse(head)
    classified = true
  }

  /** Output of the chunk being read: statements already passed go out even when a later one is refused. */
  let out = ''
  /** Reads `text` into `out` and leaves what cannot be decided yet in `carry`. */
  const read = (text: string, final: boolean): void => {
    const emit = (piece: string) => {
      if (classified) out += piece
      else held += piece
    }
    const end = final ? text.length : Math.max(0, text.length - lookahead)
    /** A word in code has ended: dynamic SQL is refused wherever it stands. */
    const endWord = () => {
      if (word && dynamicSql.has(word.toUpperCase())) refuse(`${statementText.slice(-40)}`)
      word = ''
    }
    let i = 0
    for (; i < end; i++) {
      const c = text[i]!
      if (c === '\n') line++
      if (state === 'code' && wordChar.test(c)) {
        word += c
      } else if (word) {
        endWord()
      }
      if (state === 'code') statementText = (statementText + c).slice(-200)
      if (state === 'code') {
        const fresh = !classified && head.trim() === ''
        if (fresh && c.trim() !== '') statementLine = line
        if (fresh && /^delimiter\s/i.test(text.slice(i, i + 10))) {
          // `DELIMITER xx` is a client command that ends with its line.
          const stop = text.indexOf('\n', i)
          if (stop === -1 && !final) break
          const command = text.slice(i, stop === -1 ? text.length : stop)
          delimiter = command.trim().split(/\s+/)[1] ?? ';'
          out += held + command
          held = ''
          i += command.length - 1
          continue
        }
        if (text.startsWith(delimiter, i)) {
          if (!classified) classify(true)
          out += held + delimiter
          held = ''
          head = ''
          statementText = ''
          classified = false
          statements++
          i += delimiter.length - 1
          continue
        }
        if (c === '\\' && text[i + 1] === '-') {
          // mariadb-dump's own first line `/*M!999999\- enable the sandbox mode *\/` (the client's sandbox
          // on): a client command that ends with its line, comment end included.
          const stop = text.indexOf('\n', i)
          if (stop === -1 && !final) break
          const command = text.slice(i, stop === -1 ? text.length : stop)
          out += held + command
          held = ''
          head = ''
          classified = false
          executableComment = false
          i += command.length - 1
          continue
        }
        // Any other backslash outside a string is a client command (`\u db`, `\r`, `\!`, `\.`).
        if (c === '\\') refuse(`${head}${text.slice(i, i + 20)}`)
        if (c === '/' && text[i + 1] === '*' && (text[i + 2] === '!' || (text[i + 2] === 'M' && text[i + 3] === '!'))) {
          // An executable comment (`/*!…*\/`, MariaDB's `/*M!…*\/`): its content runs, so it is read as code.
          const marker = /^\/\*M?!\d*/.exec(text.slice(i, i + lookahead))![0]
          executableComment = true
          emit(marker)
          head += ' '
          i += marker.length - 1
          continue
        }
        if (c === '*' && text[i + 1] === '/' && executableComment) {
          executableComment = false
          emit('*/')
          head += ' '
          i += 1
          continue
        }
        if (c === "'") state = 'single'
        else if (c === '"') state = 'double'
        else if (c === '`') state = 'backtick'
        else if (c === '#' || (c === '-' && text[i + 1] === '-' && /\s/.test(text[i + 2] ?? ' '))) state = 'line-comment'
        else if (c === '/' && text[i + 1] === '*') {
          state = 'block-comment'
          emit('/*')
          i += 1
          continue
        }
        if (!classified && state !== 'line-comment') head += c
      } else if (state === 'line-comment') {
        if (c === '\n') state = 'code'
      } else if (state === 'block-comment') {
        if (c === '/' && text[i - 1] === '*') state = 'code'
      } else {
        // A string or quoted name: backslash escapes in strings; a doubled quote closes and reopens.
        if (escaped) escaped = false
        else if (c === '\\' && state !== 'backtick') escaped = true
        else if (c === (state === 'single' ? "'" : state === 'double' ? '"' : '`')) state = 'code'
        if (!classified) head += c
      }
      emit(c)
      if (!classified) {
        classify(false)
        if (classified) {
          out += held
          held = ''
        }
      }
    }
    carry = text.slice(i)
  }
  const take = () => {
    const taken = Buffer.from(out, 'latin1')
    out = ''
    return taken
  }

  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      try {
        // latin1: one character per byte, so the bytes go out exactly as they came.
        read(carry + chunk.toString('latin1'), false)
        done(null, take())
      } catch (err) {
        this.push(take())
        done(err as Error)
      }
    },
    flush(done: TransformCallback) {
      try {
        read(carry, true)
        if (word && dynamicSql.has(word.toUpperCase())) refuse(statementText.slice(-40))
        if (!classified && head.trim() !== '') classify(true)
        out += held
        done(null, take())
      } catch (err) {
        this.push(take())
        done(err as Error)
      }
    },
  })
}
