/**
 * @module sources/postgresql/readRestoredPostgres
 * The `postgresql` kind's reader of a restored database for a job-level drill check (`SourceDrill.readTables`,
 * used by `restore/drill/cmsCheck`): the dump restored again into a scratch database or a temporary server
 * (`restoredDatabase`, as the kind's drill check does; the check has dropped its own by then, and keeping
 * it for the CMS check would tie the two together, so a drill with `drill.cms` restores the dump twice),
 * read with psql, dropped on `close`. Payload's adapter puts its tables in `public` or in the adapter's
 * `schemaName`: the tables of every user schema are listed by their bare name (`public` first when a name
 * is in two). Each answer is one JSON value (`json_agg`), so no text of a row can be mistaken for psql's layout.
 */
import type { DrillTablesOptions, RestoredTables } from '../types.js'
import { splitPassword } from './connectionString.js'
import { pgDumpEntryName } from './entryName.js'
import { psqlQuery, sqlIdentifier } from './psql.js'
import { openRestored } from './restoredDatabase.js'
import type { PostgresqlSourceConfig } from './schema.js'

/** Every ordinary or partitioned table of a user schema with its columns in order, `public`'s first. */
const tablesSql = `SELECT coalesce(json_agg(json_build_array(n.nspname, c.relname, (
    SELECT coalesce(json_agg(a.attname ORDER BY a.attnum), '[]') FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  )) ORDER BY n.nspname <> 'public', n.nspname, c.relname), '[]')
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%';`

export async function readRestoredPostgres(options: DrillTablesOptions<PostgresqlSourceConfig>): Promise<RestoredTables> {
  const { config, files, signal } = options
  const entry = pgDumpEntryName(config.name, splitPassword(config.database).label)
  const file = files.find((f) => f.name === entry)?.path
  if (!file) throw new Error(`${entry}: not in the snapshot`)
  const database = await openRestored(file, options)
  try {
    const schemaOf = new Map<string, string>()
    const tables: Record<string, string[]> = {}
    for (const [schema, table, columns] of JSON.parse(await psqlQuery(database.target, tablesSql, signal)) as [string, string, string[]][]) {
      if (schemaOf.has(table)) continue
      schemaOf.set(table, schema)
      tables[table] = columns
    }
    const rows = async (table: string, columns: string[], s: AbortSignal): Promise<Record<string, unknown>[]> => {
      const schema = schemaOf.get(table)
      if (schema === undefined) throw new Error(`${entry}: no table "${table}" in the restored database`)
      const select = `SELECT ${columns.map(sqlIdentifier).join(', ')} FROM ${sqlIdentifier(schema)}.${sqlIdentifier(table)}`
      const out = await psqlQuery(database.target, `SELECT coalesce(json_agg(r), '[]') FROM (${select}) r;`, s).catch((err: Error) => {
        if (s.aborted) throw s.reason
        throw new Error(`${entry}: reading table "${table}" of the restored database failed: ${err.message}`)
      })
      return JSON.parse(out) as Record<string, unknown>[]
    }
    return { tables, rows, close: database.close }
  } catch (err) {
    await database.close()
    throw err
  }
}
