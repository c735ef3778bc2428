#!/usr/bin/env node
/**
 * @module scripts/pack-manifest
 * `node ../scripts/pack-manifest.mjs write|restore`: the `prepack` and `postpack` of every published
 * package (backup-daemon, plugin-storage, plugin-openapi), run in the package's folder.
 *
 * In the workspace a package's `exports` point at its TypeScript sources (`./src/*.ts`): the tests, the
 * dev-app and `tsc -b` use them with no build step. The published package must point at the build in
 * `dist/`. pnpm would apply `publishConfig.exports` when packing; npm (11) does not, so `prepack` writes
 * the published manifest over `package.json` (keeping the workspace one beside it as
 * `package.workspace.json`) and `postpack` puts the workspace one back. npm reads `package.json` for the
 * tarball after `prepack` has run (the same hook `pinst` relies on). A pack killed half-way is undone by
 * the next `write` or `restore`.
 *
 * The published manifest, one rule for every package:
 * - the fields `publishConfig` names among `exports`, `main`, `types` and `bin` move to the top level, as
 *   pnpm does (the daemon spells its exports out there, as Payload's packages do);
 * - a package whose `publishConfig` has no `exports` gets them derived: every export `./src/<name>.ts(x)`
 *   becomes `{ types, import, default }` under `./dist/<name>` (the layout of Payload's own packages), and
 *   `main`/`types` follow `.`;
 * - what only the workspace uses (`scripts`, `devDependencies`) is left out;
 * - every file the manifest names must exist (the build ran), or the pack stops.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const cwd = process.cwd()
const manifestPath = join(cwd, 'package.json')
/** The workspace manifest while a pack runs; also how a pack killed half-way is noticed and undone. */
const savedPath = join(cwd, 'package.workspace.json')
/** Fields `publishConfig` may override at the top level (pnpm's list, less the ones no package here uses). */
const publishedFields = ['exports', 'main', 'types', 'bin']
/** Fields of the workspace only: a consumer of the package never runs or installs them. */
const workspaceOnly = ['scripts', 'devDependencies']

function restore() {
  if (existsSync(savedPath)) renameSync(savedPath, manifestPath)
}

/** `./src/exports/client.ts` → `{ types: './dist/exports/client.d.ts', import: …, default: … }`. */
function built(target) {
  const match = /^\.\/src\/(.+)\.tsx?$/.exec(target)
  if (!match) throw new Error(`export target ${target} is not a source file under ./src`)
  const js = `./dist/${match[1]}.js`
  return { types: `./dist/${match[1]}.d.ts`, import: js, default: js }
}

/** The `exports`, `main` and `types` derived from the workspace's `./src` exports. */
function derived(exports) {
  const targets = Object.fromEntries(Object.entries(exports).map(([key, target]) => [key, built(target)]))
  return { exports: targets, main: targets['.'].default, types: targets['.'].types }
}

/** Every file path named by a manifest field (nested condition objects included). */
function pathsOf(value) {
  if (typeof value === 'string') return [value]
  if (value && typeof value === 'object') return Object.values(value).flatMap(pathsOf)
  return []
}

function write() {
  restore()
  const text = readFileSync(manifestPath, 'utf8')
  const published = JSON.parse(text)
  const config = { ...published.publishConfig }
  const overrides = 'exports' in config ? {} : derived(published.exports)
  for (const field of publishedFields) {
    if (!(field in config)) continue
    overrides[field] = config[field]
    delete config[field]
  }
  Object.assign(published, overrides)
  if (published.publishConfig) published.publishConfig = config
  for (const field of workspaceOnly) delete published[field]
  const missing = publishedFields.flatMap((field) => pathsOf(published[field])).filter((path) => !existsSync(join(cwd, path)))
  if (missing.length) throw new Error(`pack-manifest: not built (run npm run build): missing ${missing.join(', ')}`)
  writeFileSync(savedPath, text)
  writeFileSync(manifestPath, `${JSON.stringify(published, null, 2)}\n`)
}

const command = process.argv[2]
if (command === 'write') write()
else if (command === 'restore') restore()
else {
  console.error('usage: pack-manifest.mjs write|restore')
  process.exit(2)
}
