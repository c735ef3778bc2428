#!/usr/bin/env node
/**
 * @module scripts/build-plugin
 * Builds the plugin in the current folder (`npm run build -w plugin-storage`, and `prepack`) to JavaScript
 * with declarations and source maps: `tsc -p tsconfig.build.json` over whatever `src/` holds, into a
 * `dist/` emptied first (so a file removed from `src/` never ships from an older build).
 *
 * Everything it prints goes to stderr: `npm pack --json` answers on stdout.
 *
 * Then it checks what a bundler needs from a client component: a source file that starts with
 * `'use client'` must still start with it in its output (tsc keeps a directive prologue; this makes sure
 * no later change of tooling silently drops it, which would break the admin panel at run time only).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

const cwd = process.cwd()
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const dist = join(cwd, 'dist')

rmSync(dist, { force: true, recursive: true })
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd, stdio: ['ignore', 2, 2] })
if (build.status !== 0) process.exit(build.status ?? 1)

/** Every file under `dir`, relative to it. */
const walk = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))

const directive = /^\s*(?:\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*['"]use client['"]/
const problems = []
for (const file of walk(join(cwd, 'src'))) {
  if (!/\.tsx?$/.test(file) || file.endsWith('.d.ts') || /\.test\.tsx?$/.test(file)) continue
  const output = join(dist, file.replace(/\.tsx?$/, '.js'))
  if (!existsSync(output)) {
    problems.push(`${file}: no ${relative(cwd, output)}`)
    continue
  }
  if (directive.test(readFileSync(join(cwd, 'src', file), 'utf8')) && !readFileSync(output, 'utf8').startsWith("'use client'")) {
    problems.push(`${relative(cwd, output)} lost its 'use client' directive`)
  }
}
if (problems.length) {
  console.error(`build of ${relative(join(cwd, '..'), cwd)} is incomplete:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
// stderr: `npm pack --json` prints its answer on stdout.
console.error(`built ${relative(join(cwd, '..'), cwd)}/dist (${walk(dist).filter((f) => f.endsWith('.js')).length} modules)`)
