#!/usr/bin/env node
// `payload-openapi --config src/payload.config.ts --out openapi.yaml`.
// Like the `payload` command, it first loads the project's `.env` files (Payload's own `loadEnv`, i.e.
// Next.js's rules: `.env`, `.env.local`, `.env.development`…, from the working folder or the nearest
// folder above that has one), so a config that reads `process.env` sees the same values as `payload`.
// A Payload config is TypeScript, so the config (and, in this repository's workspace, the CLI itself)
// is loaded through tsx. tsx is not a dependency of this package: Payload depends on it (its own CLI
// loads configs the same way), so it is resolved from the project's `payload`.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
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
for (const from of [() => createRequire(project.resolve('payload/package.json')), () => project, () => createRequire(import.meta.url)]) {
  try {
    tsxApi = tsxFrom(from())
    break
  } catch {
    // next place
  }
}
/** Payload's `loadEnv` (`payload/node`), from the project's `payload` or, in this workspace, ours. */
async function loadEnvFromPayload() {
  for (const from of [() => project, () => createRequire(import.meta.url)]) {
    let entry
    try {
      entry = from().resolve('payload/node')
    } catch {
      continue
    }
    const { loadEnv } = await import(pathToFileURL(entry).href)
    if (typeof loadEnv === 'function') return loadEnv()
  }
  console.error('payload-openapi: cannot find payload to load the .env files with; run it in the Payload project folder')
}
await loadEnvFromPayload()
if (!tsxApi) {
  console.error('payload-openapi: cannot find tsx (a dependency of payload) to load the TypeScript config; run it in the Payload project folder')
  process.exit(1)
}
const { register } = await import(tsxApi)
register()
const { runCli } = await import(fromSources ? source.href : new URL('../dist/write/cli.js', import.meta.url).href)
process.exitCode = await runCli(process.argv.slice(2))
