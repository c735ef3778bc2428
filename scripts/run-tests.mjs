#!/usr/bin/env node
// The root test command: typecheck, lint, every package's mocha suite, then the end-to-end suite.
// Mocha prints "N passing / N failing / N pending" per run; CI reads one plain closing line, so this
// script adds the runs up and ends with `N passed, N failed[, N skipped]` (also written to
// test-artifacts/summary.txt so .ci/run can repeat it as its very last line).
// A skipped test fails its step, except a MongoDB test while MONGODB_URI is unset (no MongoDB server can run
// on these machines): every mocha step reports through scripts/skip-reporter.mjs, which names each skipped
// test, and a skip whose full title does not name MongoDB counts as a failure. A `.only` fails too
// (`forbid-only` in .mocharc.json).
//
// Usage: npm test [-- <step> ...]   where a step is typecheck, lint, format, a package folder or e2e, or
//        `runtime` for every mocha step (all but the checks: what depends on the Node.js version).
//        node scripts/run-tests.mjs --sum <summary file> ...   adds up summaries of earlier runs (.ci/run
//        runs the suites on two Node.js versions) and writes the total as test-artifacts/summary.txt.
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { SKIPPED_MARK } from './skip-reporter.mjs'

const root = new URL('..', import.meta.url).pathname
const reporter = ['--reporter', join(root, 'scripts', 'skip-reporter.mjs')]
const packages = ['backup-daemon', 'plugin-openapi', 'plugin-storage', 'dev-app']

/** @type {{ name: string, cmd: string, args: string[], cwd: string, kind: 'check' | 'mocha' }[]} */
const steps = [
  { name: 'typecheck', cmd: 'npx', args: ['tsc', '-b'], cwd: root, kind: 'check' },
  { name: 'lint', cmd: 'npx', args: ['eslint', '.'], cwd: root, kind: 'check' },
  // One formatter for the repository (.prettierrc.json); `npm run format` fixes what this reports.
  { name: 'format', cmd: 'npx', args: ['prettier', '--check', '.'], cwd: root, kind: 'check' },
  ...packages
    .filter((pkg) => hasTests(join(root, pkg, 'test')))
    .map((pkg) => ({ name: pkg, cmd: 'npm', args: ['test', '--silent', '--', ...reporter], cwd: join(root, pkg), kind: 'mocha' })),
  ...(hasTests(join(root, 'test'))
    ? [{ name: 'e2e', cmd: 'npx', args: ['mocha', '--config', '.mocharc.json', ...reporter, 'test/**/*.test.ts'], cwd: root, kind: 'mocha' }]
    : []),
]

function hasTests(dir) {
  if (!existsSync(dir)) return false
  return readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.test.ts'))
}

const totals = { passed: 0, failed: 0, skipped: 0 }
const writeSummary = () => {
  const summary = `${totals.passed} passed, ${totals.failed} failed` + (totals.skipped ? `, ${totals.skipped} skipped` : '')
  mkdirSync(join(root, 'test-artifacts'), { recursive: true })
  writeFileSync(join(root, 'test-artifacts', 'summary.txt'), summary + '\n')
  console.log(summary)
  process.exitCode = totals.failed === 0 ? 0 : 1
}

if (process.argv[2] === '--sum') {
  // A missing or unreadable summary means that run never finished: it counts as one failure.
  for (const file of process.argv.slice(3)) {
    const line = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').at(-1) : ''
    const match = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/.exec(line ?? '')
    if (!match) {
      console.log(`${file}: no summary line, counted as 1 failed`)
      totals.failed += 1
      continue
    }
    totals.passed += Number(match[1])
    totals.failed += Number(match[2])
    totals.skipped += Number(match[3] ?? 0)
  }
  writeSummary()
  process.exit()
}

const wanted = process.argv.slice(2)
const selected = wanted.length ? steps.filter((s) => wanted.includes(s.name) || (wanted.includes('runtime') && s.kind === 'mocha')) : steps
const report = []
console.log(`Node.js ${process.version}`)

for (const step of selected) {
  const started = Date.now()
  console.log(`\n=== ${step.name} ===`)
  const { code, output } = await run(step)
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  if (step.kind === 'check') {
    if (code === 0) totals.passed += 1
    else totals.failed += 1
    report.push(`${step.name}: ${code === 0 ? 'ok' : 'FAILED'} (${seconds}s)`)
    continue
  }
  const count = (word) => Number(output.match(new RegExp(`^\\s*(\\d+) ${word}`, 'm'))?.[1] ?? 0)
  const passing = count('passing')
  let failing = count('failing')
  const pending = count('pending')
  // A suite that crashed before reporting still counts as a failure, and so does one that exited 0
  // without mocha's "passing" line: a process whose imports never settled runs no test at all.
  const reported = /^\s*\d+ passing/m.test(output)
  if ((code !== 0 || !reported) && failing === 0) failing = 1
  // Each skip that is not allowed fails the step, one failure per skipped test (named below the summary).
  const forbidden = forbiddenSkips(output, pending)
  totals.passed += passing
  totals.failed += failing + forbidden.length
  totals.skipped += pending
  report.push(`${step.name}: ${passing} passed, ${failing} failed, ${pending} skipped (${seconds}s)`)
  for (const title of forbidden) report.push(`  FAILED, skipped: ${title}`)
}

console.log(`\n=== summary (Node.js ${process.version}) ===`)
for (const line of report) console.log(line)
writeSummary()

/**
 * The skipped tests that fail the run: all of them when MONGODB_URI names a server, otherwise those whose full
 * title (describe titles included) does not name MongoDB. Skips that mocha counted but the reporter did not
 * name (a step run without it) fail as well.
 */
function forbiddenSkips(output, pending) {
  const skipped = output
    .split('\n')
    .filter((line) => line.startsWith(SKIPPED_MARK))
    .map((line) => line.slice(SKIPPED_MARK.length))
  const unnamed = Array.from({ length: Math.max(0, pending - skipped.length) }, () => '(a test the skip reporter did not name)')
  return [...(process.env.MONGODB_URI ? skipped : skipped.filter((title) => !/mongodb/i.test(title))), ...unnamed]
}

function run(step) {
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, { cwd: step.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env })
    let output = ''
    const keep = (chunk, sink) => {
      const text = chunk.toString()
      output += text
      sink.write(text)
    }
    child.stdout.on('data', (c) => keep(c, process.stdout))
    child.stderr.on('data', (c) => keep(c, process.stderr))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}
