/**
 * @module start/adminBuild
 * The admin panel runs as a production Next.js build (`next start`): a warm start then takes seconds,
 * where `next dev` would compile every admin route on first visit. The build is redone only when its
 * inputs changed, judged by a hash of the sources it is made from.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { retrySilentExits, runChild } from './children.js'
import { withFolderLock } from './folderLock.js'
import { importMapDone } from './payloadCliDone.js'

const repoRoot = (appRoot: string) => path.resolve(appRoot, '..')

/** Files whose content decides the build: the app's and the plugins' sources, configs and the lock file. */
function buildInputs(appRoot: string): string[] {
  const root = repoRoot(appRoot)
  const skip = new Set(['node_modules', '.next', '.data', 'dist', 'test', 'emulator', 'start'])
  const walk = (dir: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir).flatMap((name) => {
          if (skip.has(name)) return []
          const full = path.join(dir, name)
          return statSync(full).isDirectory() ? walk(full) : [full]
        })
      : []
  return [
    ...walk(path.join(appRoot, 'src')),
    ...walk(path.join(root, 'plugin-storage', 'src')),
    ...walk(path.join(root, 'plugin-openapi', 'src')),
    path.join(appRoot, 'next.config.mjs'),
    path.join(appRoot, 'package.json'),
    path.join(root, 'package-lock.json'),
  ].sort()
}

export function sourceHash(appRoot: string): string {
  const hash = createHash('sha256')
  for (const file of buildInputs(appRoot)) {
    if (!existsSync(file)) continue
    hash.update(path.relative(appRoot, file)).update('\0').update(readFileSync(file)).update('\0')
  }
  return hash.digest('hex')
}

const stampFile = (appRoot: string) => path.join(appRoot, '.next', 'dev-app-source-hash')

export function buildIsCurrent(appRoot: string): boolean {
  const stamp = stampFile(appRoot)
  return existsSync(path.join(appRoot, '.next', 'BUILD_ID')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === sourceHash(appRoot)
}

/**
 * Regenerates the import map and builds the admin panel with webpack: the dev-app's own files and the plugins'
 * workspace sources (used as sources, so no plugin build runs first) import `.js` meaning `.ts`, which needs
 * webpack's extensionAlias. The published plugins are JavaScript and build with Turbopack (test/fresh-app.e2e.test.ts).
 */
export async function buildAdmin(appRoot: string, env: NodeJS.ProcessEnv): Promise<void> {
  const nodeBin = process.execPath
  const payloadBin = path.join(repoRoot(appRoot), 'node_modules', 'payload', 'bin.js')
  const nextBin = path.join(repoRoot(appRoot), 'node_modules', 'next', 'dist', 'bin', 'next')
  // Payload's CLI (3.90) now and then exits 0 having done nothing, printing nothing (payloadcms/payload#16381,
  // #17757; about one run in six here): its closing line proves the map was checked or written.
  const generated = await retrySilentExits(
    () =>
      runChild('importmap', nodeBin, [payloadBin, 'generate:importmap'], {
        cwd: appRoot,
        env: { ...env, PAYLOAD_CONFIG_PATH: 'src/payload.config.ts' },
        quiet: true,
        doneLine: importMapDone,
      }),
    3,
    () => process.stderr.write('[importmap] payload generate:importmap exited without doing anything; trying again\n'),
  )
  if (!generated) {
    process.stderr.write('[importmap] payload generate:importmap did nothing 3 times: the import map in the repository is used as it is\n')
  }
  const hash = sourceHash(appRoot)
  await runChild('build', nodeBin, [nextBin, 'build', '--webpack'], { cwd: appRoot, env: { ...env, NEXT_TELEMETRY_DISABLED: '1' }, quiet: true })
  writeFileSync(stampFile(appRoot), hash)
}

/**
 * Runs `work` while holding the admin build's lock (`<appRoot>/.admin-build.lock`, `folderLock.ts`): two
 * `npm start` at once (two terminals, or the test suites side by side) must not both run `next build` into
 * one `.next`. A waiter checks `buildIsCurrent` again once it holds it.
 */
export function withBuildLock<T>(appRoot: string, work: () => Promise<T>, onWait: () => void = () => undefined): Promise<T> {
  return withFolderLock(path.join(appRoot, '.admin-build.lock'), work, onWait)
}
