/**
 * @module test/support/runSourceSuite
 * The behaviour every source shares, run by each source's test file (restic's backend suite, Hono's
 * router cases): its entries are well formed; a run through the real archive writer leaves no child
 * process and no temporary file behind, whether it succeeds, fails or is cancelled halfway; and bad
 * credentials fail with a clear message that holds no secret (in the error or the log).
 *
 * A database kind also goes through backup → restore → compare: its archive is restored through the
 * registry (`restore/restoreDatabases`, the code `--into-database` and the API's restore task run, which
 * hands the entry to the kind's `SourceFactory.restore`) into a place of the kind's choosing (another
 * file, database or RDB file), and the kind compares what is there with its fixture.
 *
 * Each test runs with `TMPDIR` pointed at a fresh folder of its own, so "no temporary file" is
 * checked on exactly what the code under test created (`os.tmpdir()` reads `TMPDIR` at each call).
 * Child processes are read from `/proc` (this process's children, minus the servers the test started).
 * A test can be skipped only with a reason, printed (`skip: [{ reason, tests }]`): for servers that
 * cannot run on this machine (MongoDB).
 */
import { expect } from 'chai'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createArchive } from '../../src/archive/createArchive.js'
import { restoreDatabases } from '../../src/restore/restoreDatabases.js'
import type { SourceConfig } from '../../src/sources/all.js'
import type { Source, SourceContext } from '../../src/sources/types.js'
import { abortOnFirstByte, children, eventually, readArchive, type ArchivedEntry } from './sourceSuiteProbes.js'
import { entriesOf } from './entriesOf.js'

export { readArchive, type ArchivedEntry }

export const sourceSuiteTests = [
  'produces well-formed entries',
  'leaves nothing behind after success',
  'leaves nothing behind after failure',
  'cancel stops it promptly and leaves no child process or temporary file',
  'bad credentials fail with a clear message and no secret',
  'backs up, restores through the registry and gives back the fixture',
] as const

export type SourceSuiteTest = (typeof sourceSuiteTests)[number]

export interface LogLine {
  level: 'info' | 'warn'
  message: string
}

export interface SourceSuiteOptions {
  /** Title of the `describe` block. */
  title: string
  /** Starts servers and writes the fixture data (mocha `before`); throwing `this.skip()` is not allowed: use `skip`. */
  setup?(): Promise<void>
  teardown?(): Promise<void>
  /** A source over the fixture data, built fresh for each test. */
  newSource(context: SourceContext): Source | Promise<Source>
  /** Source-specific checks of what a successful archive holds (e.g. the dump holds the rows). */
  checkArchive?(entries: ArchivedEntry[], log: LogLine[]): void | Promise<void>
  /** A log line every successful run must write (progress: objects, bytes). */
  progress?: RegExp
  /** A source that fails for a reason other than credentials (missing database, missing path). */
  failing(context: SourceContext): { source: Source | Promise<Source>; message: RegExp }
  /** Absent for sources without credentials (a folder, a file): the test is not registered then. */
  badCredentials?(context: SourceContext): { source: Source | Promise<Source>; secret: string; message: RegExp }
  /**
   * Where to cancel: by default when the first byte of the first file entry is read; a pattern
   * cancels when a matching log line is written instead (e.g. while downloads are still running).
   */
  cancelOnLog?: RegExp
  /** A database kind: where its backup is restored and how the result is compared with the fixture. */
  restore?: {
    /** The source's config (the same `name`) pointed at an empty place: another file, database or RDB file. */
    target(): SourceConfig | Promise<SourceConfig>
    /** Fails unless what the restore wrote holds the fixture's data. */
    compare(target: SourceConfig): Promise<void>
  }
  /** Pids of processes the test itself started (servers): not leftovers. */
  ownProcesses?(): number[]
  skip?: { reason: string; tests: readonly SourceSuiteTest[] }[]
}

export function runSourceSuite(options: SourceSuiteOptions): void {
  describe(`${options.title} (source suite)`, function () {
    this.timeout(120_000)
    let tempRoot: string
    let savedTmp: string | undefined
    let log: LogLine[] = []
    /** Children alive before the test (tsx's esbuild service, servers): not leftovers. */
    let existing: Set<number> = new Set()
    const context: SourceContext = { log: (level, message) => log.push({ level, message }) }

    before(async function () {
      this.timeout(120_000)
      if (options.setup) await options.setup()
    })
    after(async () => {
      if (options.teardown) await options.teardown()
    })
    beforeEach(async () => {
      log = []
      existing = new Set((await children()).map((child) => child.pid))
      savedTmp = process.env.TMPDIR
      tempRoot = await mkdtemp(join(tmpdir(), 'bd-suite-'))
      process.env.TMPDIR = tempRoot
    })
    afterEach(async () => {
      if (savedTmp === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = savedTmp
      await rm(tempRoot, { recursive: true, force: true })
    })

    const leftovers = async () => {
      await eventually(async () => {
        const own = new Set(options.ownProcesses?.() ?? [])
        const left = (await children()).filter((child) => !own.has(child.pid) && !existing.has(child.pid))
        expect(left, 'child processes left running').to.deep.equal([])
      })
      await eventually(async () => void expect(await readdir(tempRoot), `temporary files left in ${tempRoot}`).to.deep.equal([]))
    }

    const test = (name: SourceSuiteTest, body: () => Promise<void>) => {
      const skipped = options.skip?.find((s) => s.tests.includes(name))
      it(name, async function () {
        if (skipped) {
          console.log(`      skipped: ${skipped.reason}`)
          this.skip()
        }
        await body()
      })
    }

    test('produces well-formed entries', async () => {
      const source = await options.newSource(context)
      const signal = new AbortController().signal
      const seen = new Set<string>()
      let files = 0
      for await (const entry of entriesOf(source, signal)) {
        expect(entry.name, 'relative, /-separated, inside the source folder').to.match(new RegExp(`^${source.name.replace(/[.]/g, '\\.')}(/|$)`))
        expect(entry.name.split('/'), entry.name).not.to.include.members(['..', '.', ''])
        expect(seen.has(entry.name), `${entry.name} twice`).to.equal(false)
        const parent = entry.name.split('/').slice(0, -1).join('/')
        if (parent) expect(seen.has(parent), `${entry.name} before its folder`).to.equal(true)
        seen.add(entry.name)
        expect(entry.type).to.be.oneOf(['file', 'directory', 'symlink'])
        expect(entry.mode).to.be.a('number').within(0, 0o7777)
        expect(entry.mtime).to.be.instanceOf(Date)
        expect(Number.isNaN(entry.mtime.getTime())).to.equal(false)
        if (entry.type === 'file') {
          files++
          // A file's bytes come read (`data`, used before the next batch) or as a stream (`open`), never both.
          expect(Boolean(entry.open) !== Boolean(entry.data), `${entry.name} has exactly one of open() and data`).to.equal(true)
          let bytes: Buffer
          if (entry.data) bytes = entry.data
          else {
            const chunks: Buffer[] = []
            for await (const chunk of entry.open!(signal)) chunks.push(chunk as Buffer)
            bytes = Buffer.concat(chunks)
          }
          if (entry.size !== undefined) expect(bytes.length, `${entry.name}: size announced`).to.equal(entry.size)
        }
        if (entry.type === 'symlink') expect(entry.linkname).to.be.a('string')
      }
      expect(files, 'at least one file').to.be.greaterThan(0)
      if (options.progress)
        expect(log.map((l) => l.message)).to.satisfy(
          (lines: string[]) => lines.some((line) => options.progress!.test(line)),
          `a progress line ${options.progress}`,
        )
    })

    test('leaves nothing behind after success', async () => {
      const source = await options.newSource(context)
      const entries = await readArchive(createArchive([source], { compression: 'tar', signal: new AbortController().signal }))
      expect(entries.filter((e) => e.type === 'file').length).to.be.greaterThan(0)
      for (const entry of entries) expect(entry.data.length, entry.name).to.equal(entry.size)
      await options.checkArchive?.(entries, log)
      await leftovers()
    })

    test('leaves nothing behind after failure', async () => {
      const failing = options.failing(context)
      const err = await readArchive(createArchive([await failing.source], { compression: 'tar', signal: new AbortController().signal })).then(
        () => undefined,
        (e: unknown) => e as Error,
      )
      expect(err, 'the run failed').to.be.instanceOf(Error)
      expect(err!.message).to.match(failing.message)
      await leftovers()
    })

    test('cancel stops it promptly and leaves no child process or temporary file', async () => {
      const controller = new AbortController()
      const reason = new Error('cancelled by the suite')
      const cancelContext: SourceContext = {
        log: (level, message) => {
          log.push({ level, message })
          // Deferred a turn, so the work announced by the line (downloads, a dump) is under way.
          if (options.cancelOnLog?.test(message) && !controller.signal.aborted) setImmediate(() => controller.abort(reason))
        },
      }
      const inner = await options.newSource(cancelContext)
      const source = options.cancelOnLog ? inner : abortOnFirstByte(inner, controller, reason)
      const err = await readArchive(createArchive([source], { compression: 'tar', signal: controller.signal })).then(
        () => undefined,
        (e: unknown) => e as Error,
      )
      expect(controller.signal.aborted, 'the cancel point was reached').to.equal(true)
      // The archive writer's pipeline reports an abort as an AbortError (the reason as its cause); a source reports the reason.
      expect(err, 'the run failed').to.be.instanceOf(Error)
      if (err !== reason) expect(err!.name, `ended by the cancel, not by: ${err!.message}`).to.equal('AbortError')
      await leftovers()
    })

    if (options.restore) {
      test('backs up, restores through the registry and gives back the fixture', async () => {
        const { target, compare } = options.restore!
        const source = await options.newSource(context)
        const into = await target()
        expect(into.name, 'the target keeps the source name (the archive folder)').to.equal(source.name)
        const lines: string[] = []
        const archive = createArchive([source], { compression: 'tar', signal: new AbortController().signal })
        const restored = await restoreDatabases(archive, [into], { log: (line) => lines.push(line) })
        expect(restored).to.deep.equal([source.name])
        expect(lines.join('\n')).to.match(new RegExp(`restored source "${source.name}" into `))
        await compare(into)
        await leftovers()
      })
    }

    if (options.badCredentials) {
      test('bad credentials fail with a clear message and no secret', async () => {
        const { source, secret, message } = options.badCredentials!(context)
        const err = await readArchive(createArchive([await source], { compression: 'tar', signal: new AbortController().signal })).then(
          () => undefined,
          (e: unknown) => e as Error,
        )
        expect(err, 'the run failed').to.be.instanceOf(Error)
        expect(err!.message).to.match(message)
        expect(err!.message).not.to.include(secret)
        expect(String(err!.stack)).not.to.include(secret)
        for (const line of log) expect(line.message).not.to.include(secret)
        await leftovers()
      })
    }
  })
}
