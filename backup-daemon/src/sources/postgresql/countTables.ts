/**
 * @module sources/postgresql/countTables
 * The tables pg_dump writes the rows of, with their exact row counts (`count(*)` each), as one SQL query
 * answering one line of JSON `{ "schema.table": rows }`. Run at dump time in the transaction whose snapshot
 * pg_dump reads (so the counts are those of the dumped rows) and, in a drill, in the restored database: the
 * same query on both sides, so what pg_dump leaves out (extension tables, `excludeTables`) is left out of
 * both. Ordinary tables and partitions hold rows; a partitioned parent, a view or a materialized view does not.
 */
import { sqlLiteral } from './psql.js'

/** What a `postgresql` source records at dump time (`Source.recorded`), or why it counted nothing. */
export interface PostgresqlRecord {
  tables?: Record<string, number>
  /** Set instead of `tables` when `params` choose what pg_dump dumps: the counts could not be told apart. */
  uncounted?: string
}

/**
 * A pg_dump (psql `\d`) table pattern as two anchored regular expressions: `*` any text, `?` one character,
 * `.` between schema and table, letters lower-cased and `$` literal outside double quotes, everything literal
 * inside them, other regular-expression syntax kept (as psql documents). A pattern with more than one
 * unquoted dot names a database first; its last two parts are used.
 */
export function patternRegex(pattern: string): { schema?: string; table: string } {
  const parts: string[] = ['']
  let quoted = false
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === '"') {
      if (quoted && pattern[i + 1] === '"') {
        parts[parts.length - 1] += '"'
        i++
      } else quoted = !quoted
    } else if (quoted) parts[parts.length - 1] += char.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
    else if (char === '.') parts.push('')
    else if (char === '*') parts[parts.length - 1] += '.*'
    else if (char === '?') parts[parts.length - 1] += '.'
    else if (char === '$') parts[parts.length - 1] += '\\$'
    else parts[parts.length - 1] += char.toLowerCase()
  }
  const table = `^(${parts.at(-1)})$`
  return parts.length > 1 ? { schema: `^(${parts.at(-2)})$`, table } : { table }
}

/** The SQL condition on `n` (pg_namespace) and `c` (pg_class) that a table matches one of `patterns`. */
function matchesAny(patterns: readonly string[]): string {
  const one = (pattern: string) => {
    const { schema, table } = patternRegex(pattern)
    // Unqualified: as pg_dump does, the tables visible in the session's default search_path.
    const where = schema ? `n.nspname ~ ${sqlLiteral(schema)}` : 'pg_catalog.pg_table_is_visible(c.oid)'
    return `(${where} AND c.relname ~ ${sqlLiteral(table)})`
  }
  return patterns.map(one).join(' OR ')
}

/** The counting query; `exclude`: the source's `excludeTables` (none in a restored database). */
export function countTablesSql(exclude: readonly string[] = []): string {
  const excluded = exclude.length ? `AND NOT (${matchesAny(exclude)})` : ''
  // query_to_xml runs each count(*) in this statement (so in its transaction): one query, one JSON line.
  return `SELECT coalesce(json_object_agg(n.nspname || '.' || c.relname,
    (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text::bigint
    ORDER BY n.nspname, c.relname), '{}')
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'r' AND c.relpersistence <> 't'
    AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'
    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
    ${excluded};`.replace(/\n\s*/g, ' ')
}

/** Parses the query's one line. */
export function parseCounts(line: string): Record<string, number> {
  const parsed = JSON.parse(line) as Record<string, number>
  return parsed
}

/**
 * pg_dump options in `params` that choose tables or leave rows out: with one, the record would not know
 * which tables the dump holds, so the source records why it counted nothing (the drill still restores).
 */
const selecting =
  /^(-[tTnNs]|--(table|exclude-table|schema|exclude-schema|exclude-table-data|schema-only|table-and-children|exclude-table-and-children|exclude-table-data-and-children|exclude-extension|extension|no-unlogged-table-data|data-only)\b|-a$)/

/** The first of `params` that chooses what is dumped, or undefined. */
export function selectingParam(params: readonly string[] = []): string | undefined {
  return params.find((param) => selecting.test(param))
}
