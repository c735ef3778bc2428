/**
 * @module test/support/freshApp
 * A new Payload 3 app outside the workspace (under the OS temp folder, so nothing resolves to this
 * repository's node_modules), laid out as `create-payload-app`'s blank template with SQLite
 * (`freshAppTemplate.ts`), with both plugins installed from their `npm pack` tarballs as their READMEs say,
 * built with `next build` (Next's default bundler) and served by `next start`.
 *
 * Caching, like plugin-storage's Payload 4 project: the template's dependencies are installed once per
 * version set (and checkout) and reused; the plugins are packed every run (a pack is a build: it proves the
 * current sources build) and reinstalled only when a tarball's hash changed; the app is rebuilt only when
 * the tarballs or the app's files changed. Projects unused for a day are removed by a later install.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { RunningEmulator } from 'dev-app/emulator'
import { importMapDone } from 'dev-app/payload-cli-done'

import { importMapStep, openapiInstall, storageInstall, templateFiles } from './freshAppTemplate.js'
import { freePort } from './freePort.js'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
const STALE_AFTER_MS = 24 * 60 * 60 * 1000

export interface PackedPlugin {
  name: string
  /** Absolute path of the tarball (inside the app's `tarballs/` folder). */
  tarball: string
  sha256: string
  /** Paths inside the tarball (`npm pack --json`). */
  files: string[]
}

export interface FreshApp {
  dir: string
  storage: PackedPlugin
  openapi: PackedPlugin
  /** What `next build` printed (the bundler's name among it). */
  buildLog: string
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

async function workspaceVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

/** The blank template's `package.json`: Payload as in the workspace, Next/React/sharp at the workspace's versions. */
async function templateManifest(): Promise<Record<string, unknown>> {
  const payload = await workspaceVersion('payload')
  const dependencies: Record<string, string> = {}
  for (const name of ['@payloadcms/db-sqlite', '@payloadcms/next', '@payloadcms/richtext-lexical', '@payloadcms/ui', 'payload']) dependencies[name] = payload
  for (const name of ['graphql', 'next', 'react', 'react-dom', 'sharp']) dependencies[name] = await workspaceVersion(name)
  const devDependencies: Record<string, string> = { '@types/react-dom': '^19' }
  for (const name of ['@types/node', '@types/react', 'typescript']) devDependencies[name] = await workspaceVersion(name)
  return {
    name: 'fresh-payload-app',
    version: '1.0.0',
    private: true,
    type: 'module',
    scripts: { build: 'next build', dev: 'next dev', 'generate:importmap': 'payload generate:importmap', payload: 'payload', start: 'next start' },
    dependencies,
    devDependencies,
  }
}

/** Runs a command to its end; its stdout and everything it printed, or an error with the end of it. */
function run(label: string, command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, timeout = 900_000) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env, timeout, maxBuffer: 64 * 1024 * 1024 })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status ?? result.signal}):\n${output.slice(-4000)}`)
  return { output, stdout: result.stdout ?? '' }
}

/**
 * `npx payload <command>` of the app, as the app's own `node_modules/payload/bin.js`; `done` is a line every
 * finished run prints. Payload's CLI (3.79+) now and then ends at once with exit 0 having done nothing, its
 * config import left pending (payloadcms/payload#16381, #17757; about one run in six here). Holding the
 * event loop open with a timer only turns that into a wait without end (seen in CI), so an attempt that
 * ends without `done`, fails or stalls is made again, up to `attempts` times.
 */
async function runPayload(command: string, dir: string, env: NodeJS.ProcessEnv, done: RegExp, beforeAttempt = async () => {}, attempts = 4) {
  const args = [join(dir, 'node_modules', 'payload', 'bin.js'), ...command.split(' ')]
  for (let attempt = 1; ; attempt++) {
    await beforeAttempt()
    const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env, timeout: 150_000, maxBuffer: 64 * 1024 * 1024 })
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    if (result.status === 0 && done.test(output)) return { output, stdout: result.stdout ?? '' }
    const why = result.status === 0 ? 'exited 0 without finishing' : `failed (exit ${result.status ?? result.signal})`
    if (attempt >= attempts) throw new Error(`payload ${command} ${why}, ${attempts} times:\n${output.slice(-4000)}`)
    console.warn(`      payload ${command} ${why}; trying again`)
  }
}

/** `npm pack` of a workspace plugin (its `prepack` builds it and writes the published manifest). */
async function pack(folder: string, into: string): Promise<PackedPlugin> {
  const { stdout } = run(`npm pack in ${folder}`, 'npm', ['pack', '--json', '--pack-destination', into], join(repoRoot, folder))
  const [info] = JSON.parse(stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>
  const tarball = join(into, info!.filename)
  const sha256 = createHash('sha256')
    .update(await readFile(tarball))
    .digest('hex')
  // Named by content: a changed package is a new install spec, so npm really reinstalls it.
  const named = join(into, info!.filename.replace(/\.tgz$/, `-${sha256.slice(0, 12)}.tgz`))
  await rename(tarball, named)
  return { files: info!.files.map((f) => f.path), name: info!.name, sha256, tarball: named }
}

async function removeStaleProjects(parent: string, keep: string): Promise<void> {
  for (const name of await readdir(parent)) {
    const sibling = join(parent, name)
    if (sibling === keep) continue
    const times = await Promise.all(
      [join(sibling, '.last-used'), sibling].map((p) =>
        stat(p).then(
          (s) => s.mtimeMs,
          () => 0,
        ),
      ),
    )
    if (Date.now() - Math.max(...times) > STALE_AFTER_MS) await rm(sibling, { force: true, recursive: true })
  }
}

/** Environment of the app's commands: the storage and stream settings its config reads, a secret, a database. */
export function appEnv(dir: string, databaseFile: string, emu?: Pick<RunningEmulator, 'storage' | 'stream'>): NodeJS.ProcessEnv {
  const e = emu ?? {
    storage: { accessKey: 'build', cdnUrl: 'http://127.0.0.1:9/cdn', endpoint: 'http://127.0.0.1:9', s3Endpoint: 'http://127.0.0.1:9/s3', zoneName: 'build' },
    stream: {
      apiBase: 'http://127.0.0.1:9',
      apiKey: 'build',
      cdnUrl: 'http://127.0.0.1:9/cdn',
      libraryId: 1,
      readOnlyKey: 'build',
      tusEndpoint: 'http://127.0.0.1:9/tus',
    },
  }
  return {
    ...process.env,
    DATABASE_URI: `file:${databaseFile}`,
    NEXT_TELEMETRY_DISABLED: '1',
    // This process runs under tsx (mocha's loader): the app's own commands must not inherit it.
    NODE_OPTIONS: '',
    PAYLOAD_SECRET: 'fresh-app-test-secret-0123456789',
    STORAGE_ACCESS_KEY: e.storage.accessKey,
    STORAGE_CDN_URL: e.storage.cdnUrl,
    STORAGE_ENDPOINT: e.storage.endpoint,
    STORAGE_S3_ENDPOINT: e.storage.s3Endpoint,
    STORAGE_ZONE: e.storage.zoneName,
    STREAM_API_BASE: e.stream.apiBase,
    STREAM_API_KEY: e.stream.apiKey,
    STREAM_CDN_URL: e.stream.cdnUrl,
    STREAM_LIBRARY_ID: String(e.stream.libraryId),
    STREAM_READONLY_KEY: e.stream.readOnlyKey,
    STREAM_TUS_ENDPOINT: e.stream.tusEndpoint,
  }
}

/** `npm install X` of a README with the packed tarball in place of the package's registry name. */
function installArgs(readmeCommand: string, plugin: PackedPlugin): string[] {
  const words = readmeCommand.split(' ')
  if (words[0] !== 'npm' || words[1] !== 'install' || !words.includes(plugin.name)) throw new Error(`unexpected install command: ${readmeCommand}`)
  return [...words.slice(1).map((w) => (w === plugin.name ? plugin.tarball : w)), '--no-audit', '--no-fund', '--loglevel=error']
}

/** Feeds every file under `root` (names and bytes, in a stable order) into `hash`. */
async function hashTree(root: string, hash: ReturnType<typeof createHash>): Promise<void> {
  for (const entry of (await readdir(root, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, entry.name)
    if (entry.isDirectory()) await hashTree(path, hash)
    else hash.update(path).update(await readFile(path))
  }
}

/**
 * Creates (or reuses) the app, installs the current plugin tarballs, writes the template's files and builds
 * it. `FRESH_APP_DIR` overrides where it lives.
 */
export async function prepareFreshApp(log: (line: string) => void = () => undefined): Promise<FreshApp> {
  const manifest = await templateManifest()
  const key = createHash('sha256').update(JSON.stringify(manifest)).update(process.version).update(repoRoot).digest('hex').slice(0, 12)
  const dir = process.env.FRESH_APP_DIR ?? join(tmpdir(), 'hosted-media-fresh-app', key)
  if (!(await exists(join(dir, '.installed')))) {
    log(`installing the blank template's dependencies (payload ${String((manifest.dependencies as Record<string, string>).payload)}) into ${dir}`)
    // Install beside, then move into place: a run killed half-way never leaves a broken project behind.
    const staging = `${dir}.staging-${process.pid}`
    await rm(staging, { force: true, recursive: true })
    await mkdir(staging, { recursive: true })
    await writeFile(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    run('npm install of the blank template', 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], staging, { ...process.env, NODE_OPTIONS: '' })
    await writeFile(join(staging, '.installed'), new Date().toISOString())
    await rm(dir, { force: true, recursive: true })
    await mkdir(dirname(dir), { recursive: true })
    await rename(staging, dir)
    await removeStaleProjects(dirname(dir), dir)
  }
  await writeFile(join(dir, '.last-used'), new Date().toISOString())

  // Packed fresh every run, both at once (each pack runs its plugin's build).
  const packDir = await mkdtemp(join(tmpdir(), 'fresh-app-pack-'))
  const [storage, openapi] = await Promise.all([pack('plugin-storage', packDir), pack('plugin-openapi', packDir)])
  await mkdir(join(dir, 'tarballs'), { recursive: true })
  for (const plugin of [storage, openapi]) {
    const target = join(dir, 'tarballs', plugin.tarball.split('/').pop()!)
    await copyFile(plugin.tarball, target)
    plugin.tarball = target
  }
  await rm(packDir, { force: true, recursive: true })
  const installedMarker = join(dir, '.installed-plugins')
  const wanted = `${storage.sha256}\n${openapi.sha256}\n`
  if ((await readFile(installedMarker, 'utf8').catch(() => '')) !== wanted) {
    log('installing the packed plugins as their READMEs say')
    const env = { ...process.env, NODE_OPTIONS: '' }
    run(storageInstall, 'npm', installArgs(storageInstall, storage), dir, env)
    run(openapiInstall, 'npm', installArgs(openapiInstall, openapi), dir, env)
    await writeFile(installedMarker, wanted)
    // Earlier tarballs are no longer referenced by the app's package.json once both are reinstalled.
    const current = new Set([storage.tarball, openapi.tarball].map((t) => t.split('/').pop()))
    for (const name of await readdir(join(dir, 'tarballs'))) if (!current.has(name)) await rm(join(dir, 'tarballs', name), { force: true })
  }

  const files = templateFiles()
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    // The import map is the generator's: the placeholder only seeds a new app.
    if (path.endsWith('importMap.js') && (await exists(join(dir, path)))) continue
    await writeFile(join(dir, path), content)
  }

  const hash = createHash('sha256').update(wanted).update(JSON.stringify(files))
  await hashTree(join(dir, 'node_modules', '@hosted-media'), hash)
  const digest = hash.digest('hex')
  const marker = join(dir, '.next', 'fresh-app-build-hash')
  const buildLogFile = join(dir, 'build.log')
  const hasMigration = async () => (await readdir(join(dir, 'src', 'migrations')).catch(() => [])).some((name) => name.endsWith('_initial.ts'))
  if ((await readFile(marker, 'utf8').catch(() => '')) !== digest || !(await hasMigration())) {
    const buildDb = join(dir, 'build.db')
    const env = appEnv(dir, buildDb)
    log(importMapStep)
    await runPayload(importMapStep.replace(/^npx payload /, ''), dir, env, importMapDone)
    // Production databases get their tables from migrations (`next start` never pushes a schema).
    log('npx payload migrate:create initial')
    const removeMigrations = () => rm(join(dir, 'src', 'migrations'), { force: true, recursive: true })
    const created = await runPayload('migrate:create initial', dir, env, /Migration created at/, removeMigrations)
    if (!(await hasMigration())) throw new Error(`payload migrate:create wrote no migration:\n${created.output.slice(-3000)}`)
    log('next build (the default bundler)')
    await rm(join(dir, '.next'), { force: true, recursive: true })
    const { output } = run('next build', 'npx', ['next', 'build'], dir, env)
    await writeFile(buildLogFile, output)
    await writeFile(marker, digest)
    await rm(buildDb, { force: true })
  }
  return { buildLog: await readFile(buildLogFile, 'utf8'), dir, openapi, storage }
}

export interface RunningFreshApp {
  url: string
  output(): string
  close(): Promise<void>
}

/** A new SQLite database given its tables by `payload migrate`, then `next start` on a free port until `close()`. */
export async function startFreshApp(app: FreshApp, emu: RunningEmulator): Promise<RunningFreshApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fresh-app-data-'))
  const env = appEnv(app.dir, join(dataDir, 'fresh.db'), emu)
  await runPayload('migrate', app.dir, env, /Done\./)

  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [join('node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: app.dir,
    env: { ...env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000)
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
    await rm(dataDir, { force: true, recursive: true })
  }
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output.slice(-3000)}`)
    const ok = await fetch(`${url}/api/users/me`).then(
      (res) => res.status === 200,
      () => false,
    )
    if (ok) break
    if (Date.now() > deadline) {
      await close()
      throw new Error(`the fresh app did not answer in 120 s:\n${output.slice(-3000)}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  return { close, output: () => output, url }
}
