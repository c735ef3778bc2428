/**
 * @module archive/tarWorker/tarWorkerUrl
 * Where the tar worker's code is. In the published package it is `dist/archive/tarWorker/tarWorkerMain.js`,
 * compiled by tsc beside this module. Run from the repository (tsx, or the launcher's esbuild bundle,
 * whose `import.meta.url` is this source file's) there is only TypeScript, which a worker started without
 * tsx's loader cannot run (the loader would cost the worker ~30 MiB): the entry is bundled with esbuild
 * (a dev dependency) into `node_modules/.cache/backup-daemon/tar-worker-<stamp>.mjs`, rebuilt when a file
 * under `src/` is newer (bundling costs ~250 ms, a look at the stamp a few ms). The bundle is written under
 * a temporary name and renamed, so concurrent runs never load half a file. Undefined when neither works:
 * the caller then builds the tar in its own thread.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const compiled = new URL('./tarWorkerMain.js', import.meta.url)
const source = new URL('./tarWorkerMain.ts', import.meta.url)
/** Bundles other than the current one are removed once this old (a running daemon may still start them). */
const keepOldMs = 7 * 24 * 3600 * 1000

let found: Promise<URL | undefined> | undefined

export function tarWorkerUrl(): Promise<URL | undefined> {
  found ??= locate()
  return found
}

async function locate(): Promise<URL | undefined> {
  if (compiled.protocol === 'file:' && existsSync(fileURLToPath(compiled))) return compiled
  if (source.protocol !== 'file:' || !existsSync(fileURLToPath(source))) return undefined
  try {
    const packageDir = fileURLToPath(new URL('../../../', source))
    const srcDir = join(packageDir, 'src')
    const cacheDir = join(packageDir, 'node_modules', '.cache', 'backup-daemon')
    // The launcher's own stamp of the sources (only here, in the repository, is there a launcher beside them).
    const launcher = new URL('../../../bin/bundleCli.js', source).href
    const { newestMtime } = (await import(launcher)) as { newestMtime(dir: string): number }
    const name = `tar-worker-${Math.floor(newestMtime(srcDir))}.mjs`
    const bundle = join(cacheDir, name)
    if (!existsSync(bundle)) {
      const esbuild = await import('esbuild')
      const result = await esbuild.build({
        entryPoints: [fileURLToPath(source)],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        write: false,
        logLevel: 'silent',
        // Bundled CommonJS packages (picomatch) call `require` for Node's own modules; an ES module has none.
        banner: { js: `import { createRequire as __tarWorkerRequire } from 'node:module'; const require = __tarWorkerRequire(import.meta.url);` },
      })
      mkdirSync(cacheDir, { recursive: true })
      const temp = `${bundle}.${process.pid}.tmp`
      writeFileSync(temp, result.outputFiles[0]!.contents)
      renameSync(temp, bundle)
      for (const entry of readdirSync(cacheDir)) {
        const path = join(cacheDir, entry)
        if (entry.startsWith('tar-worker-') && entry !== name && Date.now() - statSync(path).mtimeMs > keepOldMs) rmSync(path, { force: true })
      }
    }
    return pathToFileURL(bundle)
  } catch {
    return undefined
  }
}
