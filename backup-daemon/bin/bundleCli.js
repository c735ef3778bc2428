/**
 * @module bin/bundleCli
 * Compiles `src/cli/main.ts` with esbuild into `node_modules/.cache/backup-daemon/<hash>/` and
 * returns the entry's URL, so the launcher runs plain JavaScript instead of registering tsx's loader.
 * The tar worker's entry (`src/sources/local/tarWorker/tarWorkerMain.ts`) is a second entry point of the same
 * build, `tar-worker.mjs`: a worker thread cannot run TypeScript without tsx's loader either, and
 * `tarWorkerUrl.ts` finds it through `currentBuild()`.
 *
 * - Rebuilt when a file under `src/` or `bin/` is newer than the last build (or the package moved).
 * - Code splitting keeps the CLI's dynamic imports lazy: a chunk that imports the AWS SDK, the MongoDB
 *   driver or the HTTP server is only loaded by the commands and jobs that need it.
 * - `import.meta.url` is replaced in each module by its source file's URL, so files found relative to
 *   a module (package.json, UI assets, libsql) are found exactly as under tsx.
 * - Each build goes to a folder named after its content hash, written under a temporary name and
 *   renamed: concurrent launches never see a half-written build, and a running daemon's lazily loaded
 *   chunks are never overwritten. `current.json` names the build to use.
 * Returns undefined (the launcher then uses tsx) when esbuild or the folder is unavailable, or when
 * `BACKUP_DAEMON_TSX=1`.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const srcDir = join(packageDir, 'src')
const cacheDir = join(packageDir, 'node_modules', '.cache', 'backup-daemon')
const pointer = join(cacheDir, 'current.json')
/** Builds other than the current one are removed once this old (a daemon may still load their chunks). */
const keepOldBuildsMs = 7 * 24 * 3600 * 1000

/** Newest modification time (ms) of the files under `dir`. */
function newestMtime(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const time = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs
    if (time > newest) newest = time
  }
  return newest
}

function readPointer() {
  try {
    return JSON.parse(readFileSync(pointer, 'utf8'))
  } catch {
    return undefined
  }
}

/** Rewrites `import.meta.url` in the package's own modules to their source file's URL. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(srcDir)) return undefined
      const text = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
      return { contents: text, loader: 'ts' }
    })
  },
}

async function build(sourcesTime) {
  const esbuild = await import('esbuild')
  const result = await esbuild.build({
    entryPoints: { main: join(srcDir, 'cli', 'main.ts'), 'tar-worker': join(srcDir, 'sources', 'local', 'tarWorker', 'tarWorkerMain.ts') },
    // Output independent of the launching process's working directory (it names modules in comments).
    absWorkingDir: packageDir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: join(cacheDir, 'out'),
    outExtension: { '.js': '.mjs' },
    write: false,
    logLevel: 'silent',
    plugins: [sourceUrls],
  })
  const hash = createHash('sha256')
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents)
  const name = hash.digest('hex').slice(0, 16)
  const dir = join(cacheDir, name)
  if (!statSync(dir, { throwIfNoEntry: false })) {
    const temp = `${dir}.${process.pid}.tmp`
    for (const file of result.outputFiles) {
      const target = join(temp, file.path.slice(join(cacheDir, 'out').length + 1))
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, file.contents)
    }
    try {
      renameSync(temp, dir)
    } catch {
      // Another launch renamed the same build in first.
      rmSync(temp, { recursive: true, force: true })
    }
  }
  const tempPointer = `${pointer}.${process.pid}.tmp`
  writeFileSync(tempPointer, JSON.stringify({ build: name, sourcesTime, packageDir }))
  renameSync(tempPointer, pointer)
  for (const entry of readdirSync(cacheDir)) {
    const path = join(cacheDir, entry)
    if (entry !== name && entry !== 'current.json' && Date.now() - statSync(path).mtimeMs > keepOldBuildsMs) rmSync(path, { recursive: true, force: true })
  }
  return name
}

let located

/**
 * The current build's folder, built first if missing or stale (looked up once per process: the launcher
 * and the tar worker's lookup share it); undefined when esbuild or the folder is unavailable.
 */
export function currentBuild() {
  located ??= locate()
  return located
}

async function locate() {
  try {
    const sourcesTime = Math.max(newestMtime(srcDir), newestMtime(join(packageDir, 'bin')))
    const current = readPointer()
    let name = current?.build
    const fresh =
      current &&
      current.sourcesTime >= sourcesTime &&
      current.packageDir === packageDir &&
      ['main.mjs', 'tar-worker.mjs'].every((entry) => statSync(join(cacheDir, name, entry), { throwIfNoEntry: false }))
    if (!fresh) {
      mkdirSync(cacheDir, { recursive: true })
      name = await build(sourcesTime)
    }
    return join(cacheDir, name)
  } catch {
    return undefined
  }
}

/** URL of the compiled CLI entry, built first if missing or stale; undefined to use tsx instead. */
export async function bundledCli() {
  if (process.env.BACKUP_DAEMON_TSX === '1') return undefined
  const dir = await currentBuild()
  return dir && pathToFileURL(join(dir, 'main.mjs')).href
}
