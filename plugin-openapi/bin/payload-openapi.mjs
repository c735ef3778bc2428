#!/usr/bin/env node
// `payload-openapi --config src/payload.config.ts --out openapi.yaml`.
// Like the `payload` command, it first loads the project's `.env` files (as Payload's `loadEnv` does, with
// Next.js's rules: `.env`, `.env.local`, `.env.development`…, from the working folder or the nearest
// folder above that has one), so a config that reads `process.env` sees the same values as `payload`.
// A Payload config is TypeScript, so the config (and, in this repository's workspace, the CLI itself)
// is loaded through tsx. tsx is not a dependency of this package: Payload depends on it (its own CLI
// loads configs the same way), so it is resolved from the project's `payload`.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'

const source = new URL('../src/write/cli.ts', import.meta.url)
// The published package ships `dist/` and no `src/`; the workspace runs its sources.
const fromSources = existsSync(source)

const project = createRequire(pathToFileURL(`${process.cwd()}/package.json`))
/** tsx's ESM API (`require.resolve` would give its CommonJS build, whose loader hooks fail from ESM). */
function tsxFrom(require) {
  const manifestPath = require.resolve('tsx/package.json')
  const target = JSON.parse(readFileSync(manifestPath, 'utf8')).exports['./esm/api'].import.default
  return new URL(target, pathToFileURL(manifestPath)).href
}
let tsxApi
for (const from of [() => createRequire(project.resolve('payload')), () => project, () => createRequire(import.meta.url)]) {
  try {
    tsxApi = tsxFrom(from())
    break
  } catch {
    // next place
  }
}
/**
 * Payload's `loadEnv` (`payload/dist/bin/loadEnv.js`), with the `@next/env` that `payload` depends on: the `.env`
 * files of the working folder (development or production set by `NODE_ENV`), else those of the nearest folder
 * above that has any. Run once tsx is registered: loaded before it (through `payload/node`, or this function)
 * the command exited 0 having done nothing in 7 of 60 runs on Node 20, after it in none of 60.
 */
function loadEnvLikePayload() {
  let nextEnv
  // From Payload's own entry (`payload/package.json` is not in its exports): the @next/env it depends on.
  for (const from of [() => createRequire(project.resolve('payload')), () => createRequire(createRequire(import.meta.url).resolve('payload'))]) {
    try {
      nextEnv = from()('@next/env')
      break
    } catch {
      // next place
    }
  }
  if (!nextEnv) {
    console.error('payload-openapi: cannot find @next/env (a dependency of payload) to load the .env files with; run it in the Payload project folder')
    return
  }
  const dev = process.env.NODE_ENV !== 'production'
  if (nextEnv.loadEnvConfig(process.cwd(), dev).loadedEnvFiles?.length) return
  for (let dir = dirname(process.cwd()); ; dir = dirname(dir)) {
    if (nextEnv.loadEnvConfig(dir, true).loadedEnvFiles?.length || dir === dirname(dir)) return
  }
}
if (!tsxApi) {
  console.error('payload-openapi: cannot find tsx (a dependency of payload) to load the TypeScript config; run it in the Payload project folder')
  process.exit(1)
}
const { register } = await import(tsxApi)
register()
loadEnvLikePayload()
const { runCli } = await import(fromSources ? source.href : new URL('../dist/write/cli.js', import.meta.url).href)
process.exitCode = await runCli(process.argv.slice(2))
