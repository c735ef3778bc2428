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
//        `runtime` for every mocha step (all but the checks: what depends on the Node.js version), less the
//        files marked ONCE_MARK (they start the Node.js they test themselves: a second pass repeats them).
//        npm test -- --list [runtime]   prints the steps (their commands) instead of running them.
//        ALSO_ON_NODE=<folder of another node> npm test   runs every mocha unit on that Node.js too (.ci/run: Node 24).
//        TEST_JOBS=N npm test   how many test processes run at once (default 3).
//        node scripts/run-tests.mjs --sum <summary file> ...   adds up summaries of earlier runs (.ci/run adds
//        the clean-tree check) and writes the total as test-artifacts/summary.txt.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync, existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { SKIPPED_MARK } from './skip-reporter.mjs'

const root = new URL('..', import.meta.url).pathname
const reporter = ['--reporter', join(root, 'scripts', 'skip-reporter.mjs')]
const packages = ['backup-daemon', 'plugin-openapi', 'plugin-storage', 'dev-app']

// Every mocha run is a unit of a pool: up to TEST_JOBS mocha processes at once (3 by default), longest first,
// each unit's output printed whole when it ends, never interleaved. The suites mostly wait on servers, child
// processes and browsers (the backup daemon's use about a third of one core each), so one process at a time left
// the cores idle half of the run; mocha's own `--parallel` was tried first and dropped: its reused workers crashed
// mid-file ("Workerpool Worker terminated Unexpectedly") and attributed one file's late errors to another's tests.
// A unit runs its files one after another in one process, as a package's `npm test` would.
// - LANES splits a package's files into units by path prefix (the last lane takes the rest); the weights are
//   their minutes measured on Node 20 here, used only to start the longest first.
// - A file that looks at the whole machine (another user's processes, npm pack's build in the package folder)
//   carries ALONE_MARK in its header comment, with the reason: its package's such files form one unit that
//   runs with nothing beside it (first, while the machine is quiet).
// - With ALSO_ON_NODE (a folder holding another Node.js's `node`, as .ci/run sets for Node 24), every package's
//   units run a second time on that Node.js in the same pool, less the files marked ONCE_MARK; the end-to-end
//   suite then runs on that Node.js only.
const LANES = {
  'backup-daemon': [
    { prefixes: ['test/restoreMatrix/'], minutes: 9 },
    { prefixes: ['test/repository/'], minutes: 8 },
    { prefixes: ['test/ui/', 'test/security/', 'test/api/'], minutes: 9 },
    { prefixes: [], minutes: 10 },
  ],
  'plugin-openapi': [
    { prefixes: ['test/responseConformance.test.ts', 'test/fixtureResponseConformance.test.ts'], minutes: 6 },
    { prefixes: [], minutes: 4 },
  ],
  'plugin-storage': [{ prefixes: [], minutes: 6 }],
  'dev-app': [{ prefixes: [], minutes: 3 }],
  e2e: [
    // The dev-app's journeys (each `npm start`s its own; the first builds the admin panel, the others wait for it).
    { prefixes: ['test/dev-app', 'test/journey-', 'test/media-admin', 'test/restore-site'], minutes: 14 },
    { prefixes: [], minutes: 8 },
  ],
}
const ALONE_MARK = 'Runs alone (scripts/run-tests.mjs)'
// A file that runs its subject on a Node.js of its own (Payload 4 on Node 24) gives the same result whatever
// Node.js runs mocha: it carries ONCE_MARK and is left out of the `runtime` pass and of the ALSO_ON_NODE units.
const ONCE_MARK = 'Runs once (scripts/run-tests.mjs)'

const wanted = process.argv.slice(2)
const runtimePass = wanted.includes('runtime')
const jobs = Math.max(1, Number(process.env.TEST_JOBS) || 3)

/** The machine's Node.js, and the one in ALSO_ON_NODE's folder: `env` is what a unit's processes get. */
const runtimes = [{ label: `Node.js ${process.version}`, env: process.env, first: true }]
if (process.env.ALSO_ON_NODE) {
  const bin = process.env.ALSO_ON_NODE
  const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout?.trim()
  if (!version) throw new Error(`ALSO_ON_NODE=${bin}: no node there`)
  runtimes.push({ label: `Node.js ${version}`, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, first: false })
}

/**
 * @typedef {{ name: string, group: string, runtime: typeof runtimes[number], cmd: string, args: string[], cwd: string,
 *   kind: 'check' | 'mocha', alone?: boolean, minutes: number }} Step
 */
/** @type {Step[]} */
const steps = [
  { name: 'typecheck', cmd: 'npx', args: ['tsc', '-b'], minutes: 2 },
  { name: 'lint', cmd: 'npx', args: ['eslint', '.'], minutes: 1 },
  // One formatter for the repository (.prettierrc.json); `npm run format` fixes what this reports.
  { name: 'format', cmd: 'npx', args: ['prettier', '--check', '.'], minutes: 0.5 },
].map((check) => ({ ...check, group: check.name, runtime: runtimes[0], cwd: root, kind: 'check' }))
for (const runtime of runtimes) {
  const again = !runtime.first || runtimePass
  steps.push(...packages.flatMap((pkg) => mochaSteps(pkg, join(root, pkg), runtime, again)))
}
// The end-to-end suite (the whole site started as users start it, the README journeys in Chromium) runs once,
// on the newest runtime: twice it was about 45 of CI's minutes, past its limit. The package suites, which start the
// CMS, the daemon and the emulator themselves, run on both.
steps.push(...mochaSteps('e2e', root, runtimes.at(-1), runtimePass))

/** The mocha units of the test files under `<cwd>/test` (what each package's `npm test` runs), by LANES, then its files that run alone. */
function mochaSteps(group, cwd, runtime, again) {
  const marked = (file, mark) => readFileSync(join(cwd, file), 'utf8').includes(mark)
  const files = testFiles(join(cwd, 'test'))
    .map((file) => join('test', file))
    .filter((file) => !(again && marked(file, ONCE_MARK)))
  const step = (title, list, minutes, alone) => ({
    name: runtimes.length > 1 ? `${title} [${runtime.label}]` : title,
    group,
    runtime,
    cmd: 'npx',
    args: ['mocha', '--config', join(root, '.mocharc.json'), ...reporter, ...list],
    cwd,
    kind: 'mocha',
    minutes,
    ...(alone && { alone }),
  })
  const lanes = LANES[group] ?? [{ prefixes: [], minutes: 1 }]
  const alone = files.filter((file) => marked(file, ALONE_MARK))
  let left = files.filter((file) => !alone.includes(file))
  const units = lanes.map(({ prefixes, minutes }, k) => {
    const mine = k === lanes.length - 1 ? left : left.filter((file) => prefixes.some((prefix) => file.startsWith(prefix)))
    left = left.filter((file) => !mine.includes(file))
    const title = lanes.length === 1 ? group : `${group} (${k === lanes.length - 1 ? 'the other files' : prefixes.join(', ')})`
    return step(title, mine, minutes)
  })
  if (alone.length) units.unshift(step(`${group} (files that run alone)`, alone, 4, true))
  return units.filter((unit) => unit.args.length > 5) // Files after mocha, --config and --reporter.
}

function testFiles(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.test.ts'))
    .sort()
}

const totals = { passed: 0, failed: 0, skipped: 0 }
const writeSummary = () => {
  const summary = `${totals.passed} passed, ${totals.failed} failed`
  mkdirSync(join(root, 'test-artifacts'), { recursive: true })
  // The file keeps the skips for --sum; the screen ends with the plain "N passed, N failed" line CI reads.
  writeFileSync(join(root, 'test-artifacts', 'summary.txt'), summary + (totals.skipped ? `, ${totals.skipped} skipped` : '') + '\n')
  if (totals.skipped) console.log(`${totals.skipped} skipped`)
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

if (wanted.includes('--list')) {
  // What would run, one step a line (`npm test -- --list [runtime]`).
  for (const step of steps) console.log(`${step.name}${step.alone ? ' (alone)' : ''}: (cd ${step.cwd} && ${step.cmd} ${step.args.join(' ')})`)
  process.exit()
}

const selected = wanted.length
  ? steps.filter((s) => wanted.includes(s.name) || wanted.includes(s.group) || (wanted.includes('runtime') && s.kind === 'mocha'))
  : steps
const report = []
console.log(`${runtimes.map((r) => r.label).join(' and ')}; up to ${jobs} test processes at once (TEST_JOBS)`)
const runStarted = Date.now()
await runPool(selected)
console.log(`\n=== summary (${runtimes.map((r) => r.label).join(' and ')}; ${((Date.now() - runStarted) / 60000).toFixed(1)} min) ===`)
for (const line of report) console.log(line)
writeSummary()

/**
 * Runs the steps `jobs` at a time: the ones that run alone first, each with nothing beside it, then the rest
 * longest first.
 */
async function runPool(queue) {
  const waiting = [...queue.filter((s) => s.alone), ...queue.filter((s) => !s.alone).sort((a, b) => b.minutes - a.minutes)]
  const running = new Set()
  await new Promise((done) => {
    const next = () => {
      if (waiting.length === 0 && running.size === 0) return done()
      for (let k = 0; k < waiting.length && running.size < jobs;) {
        const step = waiting[k]
        const blocked =
          (step.alone && running.size > 0) ||
          [...running].some((other) => other.alone) ||
          // What runs alone runs before everything else.
          (!step.alone && waiting.some((other) => other.alone))
        if (blocked) {
          k++
          continue
        }
        waiting.splice(k, 1)
        running.add(step)
        const started = Date.now()
        console.log(`--- ${new Date().toISOString().slice(11, 19)} started: ${step.name}`)
        run(step).then((result) => {
          running.delete(step)
          const seconds = ((Date.now() - started) / 1000).toFixed(1)
          process.stdout.write(`\n=== ${step.name} (${seconds}s) ===\n${result.output}`)
          tally(step, result, seconds)
          next()
        })
        if (step.alone) break
      }
    }
    next()
  })
}

/** Adds one step's result to the totals and the report. */
function tally(step, { code, output }, seconds) {
  if (step.kind === 'check') {
    if (code === 0) totals.passed += 1
    else totals.failed += 1
    report.push(`${step.name}: ${code === 0 ? 'ok' : 'FAILED'} (${seconds}s)`)
    return
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
  for (const line of failures(output)) report.push(`  ${line}`)
  for (const title of forbidden) report.push(`  FAILED, skipped: ${title}`)
}

/**
 * Mocha's failure list (the titles and the first lines of each error), so that the summary at the end of a long
 * log names what failed without a search through every unit's output.
 */
function failures(output) {
  const start = output.search(/^\s*\d+ failing/m)
  if (start < 0) return []
  const kept = []
  for (const block of output
    .slice(start)
    .split(/\n(?=\s*\d+\) )/)
    .slice(1, 11)) {
    const lines = block
      .split('\n')
      .map((line) => line.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').trimEnd())
      .filter((line) => line.trim())
    const errorAt = lines.findIndex((line) => /^\s*(\w*Error|AssertionError)\b/.test(line))
    kept.push(...lines.slice(0, errorAt < 0 ? 4 : errorAt + 3).map((line) => line.trim()))
  }
  return kept
}

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

/** Runs a step on its runtime; its output is kept and printed whole when it ends. */
function run(step) {
  return new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, { cwd: step.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: step.runtime.env })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk.toString()))
    child.stderr.on('data', (chunk) => (output += chunk.toString()))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}
