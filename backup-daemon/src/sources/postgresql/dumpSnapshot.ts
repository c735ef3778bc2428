/**
 * @module sources/postgresql/dumpSnapshot
 * What a `postgresql` source records for a restore drill: the tables pg_dump dumps and their exact row
 * counts, counted in the snapshot pg_dump reads. A psql session opens a `REPEATABLE READ` transaction and
 * exports its snapshot (`pg_export_snapshot()`); pg_dump gets `--snapshot=<id>`, and the same transaction
 * counts the rows (`countTables`) while pg_dump reads them. The session stays open until the dump is read
 * (an exported snapshot lives as long as its transaction), then ends. Recording never fails a backup: a
 * session that cannot start or count is a warning, and the record says why nothing was counted.
 */
import { dirname, join } from 'node:path'
import type { SourceContext } from '../types.js'
import { countTablesSql, parseCounts, selectingParam, type PostgresqlRecord } from './countTables.js'
import { PsqlSession } from './psql.js'
import type { PostgresqlSourceConfig } from './schema.js'

/** The psql beside the configured pg_dump (same version), else the one on PATH. */
export function psqlBinary(config: { pgDump?: string | undefined }, name = 'psql'): string {
  return config.pgDump ? join(dirname(config.pgDump), name) : name
}

export interface DumpSnapshot {
  /** For `--snapshot=`; undefined: pg_dump takes its own snapshot (nothing is counted). */
  id: string | undefined
  /** Once the dump is read: the counts (or why there are none), and the session ended. */
  finish(): Promise<PostgresqlRecord>
  /** Ends the session (idempotent): after a failure or cancel, or after `finish`. */
  close(): Promise<void>
}

export async function openDumpSnapshot(config: PostgresqlSourceConfig, context: SourceContext, signal: AbortSignal): Promise<DumpSnapshot> {
  const warn = (why: string): PostgresqlRecord => {
    context.log('warn', `source "${config.name}": row counts not recorded for the restore drill: ${why}`)
    return { uncounted: why }
  }
  const selecting = selectingParam(config.params)
  if (selecting) {
    const record = warn(`params choose what pg_dump dumps (${selecting})`)
    return { id: undefined, finish: async () => record, close: async () => {} }
  }
  let session: PsqlSession
  let id: string | undefined
  try {
    session = PsqlSession.open({ ...config, psql: psqlBinary(config) }, signal)
    ;[id] = await session.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SELECT pg_catalog.pg_export_snapshot();')
  } catch (err) {
    signal.throwIfAborted()
    const record = warn(`psql could not export a snapshot: ${(err as Error).message}`)
    return { id: undefined, finish: async () => record, close: async () => {} }
  }
  const started = Date.now()
  // Counted while pg_dump reads: both read the same snapshot, and the dump does not wait for the counts.
  const counting = session.query(countTablesSql(config.excludeTables)).then(([line = '{}']) => ({ counts: parseCounts(line), ms: Date.now() - started }))
  counting.catch(() => {}) // awaited by finish; a failure there is a warning
  let closed: Promise<void> | undefined
  const close = () => (closed ??= session.close())
  return {
    id,
    close,
    async finish() {
      try {
        const { counts, ms } = await counting
        const rows = Object.values(counts).reduce((a, b) => a + b, 0)
        context.log('info', `source "${config.name}": ${Object.keys(counts).length} table(s), ${rows} row(s) counted in the dump's snapshot in ${ms} ms`)
        return { tables: counts }
      } catch (err) {
        signal.throwIfAborted()
        return warn(`counting failed: ${(err as Error).message}`)
      } finally {
        await close()
      }
    },
  }
}
