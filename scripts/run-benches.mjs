#!/usr/bin/env node
// `npm run bench [-- <name-part> ...]`: runs every `bench/*.bench.ts` one after another (never in parallel:
// the machines have two cores and each benchmark measures its own baseline in the same run).
// Each benchmark prints its ratios; lines starting with "RESULT" are repeated in the closing summary.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const benchDir = join(root, 'bench')
const filters = process.argv.slice(2)
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((part) => f.includes(part)))
  .sort()

const results = []
let failures = 0
for (const file of files) {
  console.log(`\n=== ${file} ===`)
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', join(benchDir, file)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      for (const line of chunk.toString().split('\n')) if (line.startsWith('RESULT')) results.push(`${file}: ${line}`)
    })
    child.on('close', resolve)
  })
  if (code !== 0) {
    failures += 1
    results.push(`${file}: FAILED (exit ${code})`)
  }
}
console.log('\n=== benchmark summary ===')
for (const line of results) console.log(line)
process.exitCode = failures ? 1 : 0
