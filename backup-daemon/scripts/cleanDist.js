/**
 * @module scripts/cleanDist
 * Empties `dist/` before `npm run build` (tsc never deletes the output of a removed source file, which
 * would then ship), keeping what `tsc -b` keeps there for the repository's typecheck: `dist/types/`
 * and `dist/tsconfig.tsbuildinfo` (neither ships: package.json `files` excludes them).
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'

const dist = new URL('../dist/', import.meta.url)
const keep = new Set(['types', 'tsconfig.tsbuildinfo'])

for (const entry of existsSync(dist) ? readdirSync(dist, { withFileTypes: true, encoding: 'utf8' }).filter((e) => !keep.has(e.name)) : []) {
  rmSync(new URL(entry.name, dist), { recursive: true, force: true })
}
