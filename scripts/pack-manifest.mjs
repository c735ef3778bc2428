#!/usr/bin/env node
/**
 * @module scripts/pack-manifest
 * `node ../scripts/pack-manifest.mjs write|restore`, the plugins' `prepack` and `postpack`.
 *
 * In the workspace a plugin's `exports` point at its TypeScript sources (`./src/*.ts`): the tests, the
 * dev-app and `tsc -b` use them with no build step. The published package must point at the build in
 * `dist/`. pnpm would apply `publishConfig.exports` when packing; npm (11) does not, so `prepack` writes
 * the published manifest over `package.json` (keeping the workspace one beside it) and `postpack` puts
 * the workspace one back. npm reads `package.json` for the tarball after `prepack` has run.
 *
 * The published manifest: every export `./src/<name>.ts(x)` becomes `{ types, import, default }` under
 * `./dist/<name>` (the layout of Payload's own packages), `main`/`types` follow `.`, and what only the
 * workspace uses (`scripts`, `devDependencies`) is left out. Every target must exist in `dist/`.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const cwd = process.cwd()
const manifestPath = join(cwd, 'package.json')
/** The workspace manifest while a pack runs; also how a pack killed half-way is noticed and undone. */
const savedPath = join(cwd, 'package.workspace.json')

function restore() {
  if (existsSync(savedPath)) renameSync(savedPath, manifestPath)
}

/** `./src/exports/client.ts` → `{ types: './dist/exports/client.d.ts', import: …, default: … }`. */
function built(target) {
  const match = /^\.\/src\/(.+)\.tsx?$/.exec(target)
  if (!match) throw new Error(`export target ${target} is not a source file under ./src`)
  const js = `./dist/${match[1]}.js`
  const types = `./dist/${match[1]}.d.ts`
  for (const file of [js, types]) if (!existsSync(join(cwd, file))) throw new Error(`${file} is missing: run the build first`)
  return { types, import: js, default: js }
}

function write() {
  restore()
  const text = readFileSync(manifestPath, 'utf8')
  const workspace = JSON.parse(text)
  const exports = Object.fromEntries(Object.entries(workspace.exports).map(([key, target]) => [key, built(target)]))
  const published = { ...workspace, exports, main: exports['.'].default, types: exports['.'].types }
  delete published.scripts
  delete published.devDependencies
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
