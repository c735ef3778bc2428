/**
 * @module archive/tarWorker/tarWorkerUrl
 * Where the tar worker's code is. In the published package it is `dist/archive/tarWorker/tarWorkerMain.js`,
 * compiled by tsc beside this module. Run from the repository (tsx, or the launcher's esbuild bundle,
 * whose `import.meta.url` is this source file's) there is only TypeScript, which a worker started without
 * tsx's loader cannot run (the loader would cost the worker ~30 MiB): the entry is bundled once per
 * process with esbuild (a dev dependency, ~50 ms) into a `data:` module. Undefined when neither works:
 * the caller then builds the tar in its own thread.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

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
    const esbuild = await import('esbuild')
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(source)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      // Bundled CommonJS packages (picomatch) call `require` for Node's modules; a `data:` module has none.
      banner: { js: `import { createRequire as __tarWorkerRequire } from 'node:module'; const require = __tarWorkerRequire(${JSON.stringify(source.href)});` },
    })
    const code = result.outputFiles[0]!.text
    return new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
  } catch {
    return undefined
  }
}
