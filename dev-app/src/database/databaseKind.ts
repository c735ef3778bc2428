/**
 * @module database/databaseKind
 * Which database `DATABASE_URI` names: a `mongodb://` (or `mongodb+srv://`) URI, a `postgres://` or
 * `postgresql://` URI, or else the embedded SQLite file (`file:…`). Read in one place, so the CMS's
 * adapter and the backup daemon's `cms` job always agree.
 */

export type DatabaseKind = 'sqlite' | 'mongodb' | 'postgres'

export function databaseKind(uri: string): DatabaseKind {
  if (/^mongodb(\+srv)?:\/\//i.test(uri)) return 'mongodb'
  if (/^postgres(ql)?:\/\//i.test(uri)) return 'postgres'
  return 'sqlite'
}
