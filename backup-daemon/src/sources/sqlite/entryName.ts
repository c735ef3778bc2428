/**
 * @module sources/sqlite/entryName
 * Where a `sqlite` source's database goes in the archive (the source writes it there, the drill finds it there).
 */
import { basename, extname } from 'node:path'

/** The entry name of a database file: `<name>/<file name without extension>.sqlite`. */
export function sqliteEntryName(name: string, path: string): string {
  const file = basename(path)
  return `${name}/${basename(file, extname(file)) || file}.sqlite`
}
