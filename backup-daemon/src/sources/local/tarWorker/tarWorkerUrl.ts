/**
 * @module sources/local/tarWorker/tarWorkerUrl
 * Where the tar worker's code is. In the published package it is `dist/sources/local/tarWorker/tarWorkerMain.js`,
 * compiled by tsc beside this module. Run from the repository (tsx, or the launcher's esbuild bundle,
 * whose `import.meta.url` is this source file's) there is only TypeScript, which a worker started without
 * tsx's loader cannot run (the loader would cost the worker ~30 MiB): the launcher's esbuild build
 * (`bin/bundleCli.js`, a dev dependency) has the worker as a second entry point, `tar-worker.mjs`, built
 * with the CLI and rebuilt with it when a file under `src/` is newer. Undefined when neither is there: the
 * caller then builds the tar in its own thread.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const compiled = new URL('./tarWorkerMain.js', import.meta.url)
const source = new URL('./tarWorkerMain.ts', import.meta.url)

let found: Promise<URL | undefined> | undefined

export function tarWorkerUrl(): Promise<URL | undefined> {
  found ??= locate()
  return found
}

async function locate(): Promise<URL | undefined> {
  if (compiled.protocol === 'file:' && existsSync(fileURLToPath(compiled))) return compiled
  if (source.protocol !== 'file:' || !existsSync(fileURLToPath(source))) return undefined
  try {
    // Only in the repository is there a launcher beside the sources; it is the launcher's own module
    // (same URL), so a CLI process looks its build up once.
    const launcher = new URL('../../../../bin/bundleCli.js', source).href
    const { currentBuild } = (await import(launcher)) as { currentBuild(): Promise<string | undefined> }
    const build = await currentBuild()
    return build === undefined ? undefined : pathToFileURL(join(build, 'tar-worker.mjs'))
  } catch {
    return undefined
  }
}
