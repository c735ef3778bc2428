/**
 * @module test/support/freshApp
 * A new Payload 3 app outside the workspace (under the OS temp folder, so nothing resolves to this
 * repository's node_modules), laid out as `create-payload-app`'s blank template with SQLite
 * (`freshAppTemplate.ts`) on a given Payload release, with both plugins installed by their READMEs'
 * install commands run as written (`freshAppInstall.ts`: `npm pack` here, `npm install <tarball>` there),
 * built with `next build` (Next's default bundler) and served by `next start`.
 *
 * Caching, like plugin-storage's Payload 4 project and through the same helpers (its `nextProject.ts`, which
 * also starts `next start` and polls it): the template's dependencies are installed once per version set
 * (and checkout) and reused; the plugins are packed every run (a pack is a build: it proves the
 * current sources build) and reinstalled only when a tarball's hash changed; the app is rebuilt only when
 * the tarballs or the app's files changed. Projects unused for a day are removed by a later install.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { RunningEmulator } from 'dev-app/emulator'
import { importMapDone } from 'dev-app/payload-cli-done'

import { importMapStep, templateFiles } from './freshAppTemplate.js'
import { exists, hashTree, installProjectOnce, startNext, type RunningNext } from '../../plugin-storage/test/support/nextProject.js'
import { packAsWritten, readmeInstall, runAsWritten, type CommandRun, type PackedPlugin } from './freshAppInstall.js'

export type { PackedPlugin } from './freshAppInstall.js'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

export interface PackedPlugins {
  storage: PackedPlugin
  openapi: PackedPlugin
}

export interface FreshApp extends PackedPlugins {
  dir: string
  /** The Payload release the app was created with. */
  payloadVersion: string
  /** The README install commands run in the app and what they printed (empty when the app already had these tarballs). */
  installRuns: CommandRun[]
  /** What `next build` printed (the bundler's name among it); empty when the app was not built. */
  buildLog: string
}

async function workspaceVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

/** The blank template's `package.json`: Payload at `payload`, Next/React/sharp at the workspace's versions. */
async function templateManifest(payload: string): Promise<Record<string, unknown>> {
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

const storageReadme = 'plugin-storage/README.md'
const openapiReadme = 'plugin-openapi/README.md'
/** The commands the READMEs' install sections give (`npm` without a TypeScript loader, as a reader runs them). */
const commandEnv = (): NodeJS.ProcessEnv => ({ ...process.env, NODE_OPTIONS: '', npm_config_audit: 'false', npm_config_fund: 'false' })

/** Both plugins packed by their READMEs' repository commands (each pack runs its plugin's build). */
export function packPlugins(): PackedPlugins {
  const env = commandEnv()
  return { openapi: packAsWritten(readmeInstall(openapiReadme), env), storage: packAsWritten(readmeInstall(storageReadme), env) }
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

export interface PrepareOptions {
  /** The Payload release of the app (every `@payloadcms/*` package of the template at the same one). */
  payloadVersion: string
  plugins: PackedPlugins
  /** Write the template's files, migrate and `next build` (otherwise: install only). */
  build: boolean
  log?: (line: string) => void
}

/**
 * Creates (or reuses) the app on a Payload release, installs the packed plugins with the READMEs' commands,
 * and (with `build`) writes the template's files and builds it. `FRESH_APP_DIR` overrides where the built one lives.
 */
export async function prepareFreshApp({ build, log = () => undefined, payloadVersion, plugins }: PrepareOptions): Promise<FreshApp> {
  const manifest = await templateManifest(payloadVersion)
  const key = createHash('sha256').update(JSON.stringify(manifest)).update(process.version).update(repoRoot).digest('hex').slice(0, 12)
  const dir = (build && process.env.FRESH_APP_DIR) || join(tmpdir(), 'hosted-media-fresh-app', key)
  const payload = String((manifest.dependencies as Record<string, string>).payload)
  await installProjectOnce({ dir, label: `the blank template's dependencies (payload ${payload})`, log, manifest })

  const { openapi, storage } = plugins
  const installedMarker = join(dir, '.installed-plugins')
  const wanted = `${storage.sha256}\n${openapi.sha256}\n`
  let installRuns: CommandRun[] = []
  if ((await readFile(installedMarker, 'utf8').catch(() => '')) !== wanted) {
    log(`installing the packed plugins into the app on payload ${payloadVersion} with the READMEs' commands`)
    // The tarballs keep their names from one build to the next: without the old copies npm surely unpacks the new ones.
    for (const plugin of [storage, openapi]) await rm(join(dir, 'node_modules', plugin.name), { force: true, recursive: true })
    installRuns = [storageReadme, openapiReadme].flatMap((readme) => runAsWritten(readmeInstall(readme).inApp, dir, commandEnv()))
    await writeFile(installedMarker, wanted)
  }
  if (!build) return { buildLog: '', dir, installRuns, openapi, payloadVersion, storage }

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
  return { buildLog: await readFile(buildLogFile, 'utf8'), dir, installRuns, openapi, payloadVersion, storage }
}

export type RunningFreshApp = RunningNext

/** A new SQLite database given its tables by `payload migrate`, then `next start` on a free port until `close()`. */
export async function startFreshApp(app: FreshApp, emu: RunningEmulator): Promise<RunningFreshApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fresh-app-data-'))
  const env = appEnv(app.dir, join(dataDir, 'fresh.db'), emu)
  await runPayload('migrate', app.dir, env, /Done\./)
  return startNext({ dataDir, dir: app.dir, env, label: 'the fresh app', node: process.execPath })
}
