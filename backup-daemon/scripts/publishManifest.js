/**
 * @module scripts/publishManifest
 * Writes the published package.json around `npm pack` / `npm publish` (the `prepack` and `postpack`
 * scripts), because npm, unlike pnpm, does not apply `publishConfig.exports` (nor `main`, `types`,
 * `bin`) when it packs. The workspace's package.json points `exports` at the TypeScript sources, which
 * the other workspaces and the tests import through tsx; the tarball must point at the build in `dist/`.
 *
 * - `apply`: keeps the workspace manifest as `package.json.workspace`, then moves the fields named in
 *   `publishConfig` (the same ones Payload's packages put there) to the top level. npm reads package.json
 *   from disk when it builds the tarball, after `prepack` has run (the same hook `pinst` relies on).
 *   Refuses when a published file is missing (the build did not run).
 * - `restore`: puts the workspace manifest back (also repairs a pack that failed between the two).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

const manifest = new URL('../package.json', import.meta.url)
const saved = new URL('../package.json.workspace', import.meta.url)
/** Fields `publishConfig` may override at the top level of the published manifest (pnpm's list, less the ones we never use). */
const published = ['exports', 'main', 'types', 'bin']

function restore() {
  if (existsSync(saved)) renameSync(saved, manifest)
}

/** Every file path named by a manifest field (nested condition objects included). */
function pathsOf(value) {
  if (typeof value === 'string') return [value]
  if (value && typeof value === 'object') return Object.values(value).flatMap(pathsOf)
  return []
}

function apply() {
  restore()
  const text = readFileSync(manifest, 'utf8')
  const pkg = JSON.parse(text)
  const config = { ...pkg.publishConfig }
  for (const field of published) {
    if (!(field in config)) continue
    pkg[field] = config[field]
    delete config[field]
  }
  pkg.publishConfig = config
  const missing = published.flatMap((field) => pathsOf(pkg[field])).filter((path) => !existsSync(new URL(`../${path}`, import.meta.url)))
  if (missing.length) throw new Error(`publishManifest: not built (run npm run build): missing ${missing.join(', ')}`)
  writeFileSync(saved, text)
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`)
}

const command = process.argv[2]
if (command === 'apply') apply()
else if (command === 'restore') restore()
else {
  process.stderr.write('usage: node scripts/publishManifest.js apply|restore\n')
  process.exit(2)
}
