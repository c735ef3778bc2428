/**
 * @module test/support/nextProject
 * What the repository's two throwaway Payload + Next.js projects share: plugin-storage's Payload 4 project
 * (`payload4Project.ts`) and the root e2e suite's fresh Payload 3 app (`test/support/freshApp.ts`).
 *
 * - `installProjectOnce`: an npm project under the OS temp folder (outside this repository, so nothing
 *   resolves to the workspace's packages), installed once per version set and reused by later runs;
 *   siblings unused for a day (older version sets, other checkouts) are removed by a later install.
 * - `hashTree`: what decides whether a build is stale (the inputs' names and bytes).
 * - `startNext`: `next start` of a built project on a free port, polled until the CMS answers.
 *
 * It lives here rather than in the root `test/support/` because the root suite's tsconfig references
 * plugin-storage's (so the root can import it, as it imports `payload4Project.ts`), while plugin-storage's
 * `rootDir` keeps files outside the package out of its own program.
 */
import { spawn, spawnSync } from 'node:child_process'
import type { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'

const STALE_AFTER_MS = 24 * 60 * 60 * 1000
/** How long `next start` may take to answer (a cold start on a loaded two-core machine). */
const ANSWER_TIMEOUT_MS = 120_000

export const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

/** Feeds every file under `root` (names and bytes, in a stable order) into `hash`. */
export async function hashTree(root: string, hash: ReturnType<typeof createHash>): Promise<void> {
  for (const entry of (await readdir(root, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, entry.name)
    if (entry.isDirectory()) await hashTree(path, hash)
    else hash.update(path).update(await readFile(path))
  }
}

/** Each project is one to two GB: siblings unused for a day go. */
async function removeStaleProjects(parent: string, keep: string): Promise<void> {
  for (const name of await readdir(parent)) {
    const sibling = join(parent, name)
    if (sibling === keep) continue
    // A half-installed staging folder has no `.last-used`: its own time counts (a running install is fresh).
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

export interface ProjectInstall {
  /** Where the project lives (its parent holds the other version sets, cleaned up here). */
  dir: string
  /** The project's `package.json`. */
  manifest: Record<string, unknown>
  /** Names the project in the log and in errors. */
  label: string
  log: (line: string) => void
}

/** Installs the project unless a finished install is there already, and marks it used now. */
export async function installProjectOnce({ dir, label, log, manifest }: ProjectInstall): Promise<void> {
  if (!(await exists(join(dir, '.installed')))) {
    log(`installing ${label} into ${dir}`)
    // Install beside, then move into place: a run killed half-way never leaves a broken project behind.
    const staging = `${dir}.staging-${process.pid}`
    await rm(staging, { force: true, recursive: true })
    await mkdir(staging, { recursive: true })
    await writeFile(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    // Without this process's loader (mocha runs under tsx): npm and its scripts are plain node.
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: staging,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 900_000,
    })
    if (npm.status !== 0) throw new Error(`npm install of ${label} failed (exit ${npm.status ?? npm.signal}):\n${`${npm.stdout}${npm.stderr}`.slice(-4000)}`)
    await writeFile(join(staging, '.installed'), new Date().toISOString())
    await rm(dir, { force: true, recursive: true })
    await mkdir(dirname(dir), { recursive: true })
    await rename(staging, dir)
    await removeStaleProjects(dirname(dir), dir)
  }
  await writeFile(join(dir, '.last-used'), new Date().toISOString())
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return typeof address === 'object' && address ? address.port : 0
}

export interface NextStart {
  /** The built project. */
  dir: string
  /** The Node.js binary to run Next with. */
  node: string
  /** Its environment (`NODE_ENV=production` is added). */
  env: NodeJS.ProcessEnv
  /** Names the app in errors. */
  label: string
  /** Removed once the server has stopped (the app's database, say). */
  dataDir: string
}

export interface RunningNext {
  url: string
  /** The last 20 kB the server printed. */
  output(): string
  close(): Promise<void>
}

/** `next start` on a free port of 127.0.0.1, polled until `/api/users/me` answers 200; stopped by `close()`. */
export async function startNext({ dataDir, dir, env, label, node }: NextStart): Promise<RunningNext> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(node, [join('node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: dir,
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
  const deadline = Date.now() + ANSWER_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start of ${label} exited (${child.exitCode}):\n${output.slice(-3000)}`)
    const ok = await fetch(`${url}/api/users/me`).then(
      (res) => res.status === 200,
      () => false,
    )
    if (ok) break
    if (Date.now() > deadline) {
      await close()
      throw new Error(`${label} did not answer in ${ANSWER_TIMEOUT_MS / 1000} s:\n${output.slice(-3000)}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  return { close, output: () => output, url }
}
