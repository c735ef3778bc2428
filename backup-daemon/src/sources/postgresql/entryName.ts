/**
 * @module sources/postgresql/entryName
 * The archive name of a `postgresql` source's dump, apart from the source so its drill check can name it
 * without importing the source (which registers the check).
 */

/**
 * File name of a database's dump inside the source's folder (no path separators can come through).
 * `database` is the name alone (`splitPassword(...).label` for a URI or key/value string).
 */
export function pgDumpEntryName(name: string, database: string): string {
  return `${name}/${database.replace(/[^A-Za-z0-9._-]/g, '_')}.dump`
}
