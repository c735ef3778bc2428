/**
 * @module ui/build/buildUi
 * Builds the web UI: esbuild bundles `ui/app/main.tsx` (Preact) and its stylesheet into content-hashed
 * files under `<outDir>/static/`, and writes `index.html` pointing at them. The output is committed
 * (`backup-daemon/ui/assets/`) so `npm install && npm start` serves the UI without a build step; a
 * test rebuilds into a temp folder and fails when the committed files differ.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build, type Plugin } from 'esbuild'
import { ansiPaletteCss } from '../lib/ansiToHtml.js'
import { listFiles } from './listFiles.js'

export interface BuildUiOptions {
  /** Folder to write into; emptied first. */
  outDir: string
}

export interface BuildUiResult {
  /** Written files relative to `outDir`, sorted. */
  files: string[]
  /** Sum of the gzipped sizes of index.html, the script and the stylesheet (level 9). */
  gzipBytes: number
}

const appDir = new URL('../app/', import.meta.url).pathname
/** esbuild's output depends on its working directory (relative paths feed the hashes): pin it to the package. */
const packageDir = new URL('../../../', import.meta.url).pathname

/** Where the committed build lives (served by `serveUi`). */
export const committedAssetsDir = new URL('../../../ui/assets/', import.meta.url).pathname

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2563eb"/>' +
  '<path d="M8 11h16v3H8zm0 5h16v3H8zm0 5h10v3H8z" fill="#fff"/></svg>\n'

/** `virtual:ansi-palette.css`: the 240 extended colour classes, generated rather than hand-written. */
const palettePlugin: Plugin = {
  name: 'ansi-palette',
  setup(b) {
    b.onResolve({ filter: /^virtual:ansi-palette\.css$/ }, (args) => ({ path: args.path, namespace: 'ansi-palette' }))
    b.onLoad({ filter: /.*/, namespace: 'ansi-palette' }, () => ({ contents: ansiPaletteCss(), loader: 'css' }))
  },
}

export async function buildUi({ outDir }: BuildUiOptions): Promise<BuildUiResult> {
  rmSync(outDir, { recursive: true, force: true })
  const staticDir = join(outDir, 'static')
  mkdirSync(staticDir, { recursive: true })
  const result = await build({
    absWorkingDir: packageDir,
    entryPoints: [join(appDir, 'main.tsx')],
    outdir: staticDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    charset: 'utf8',
    metafile: true,
    write: true,
    logLevel: 'warning',
    plugins: [palettePlugin],
  })
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p))
  const script = outputs.find((f) => f.endsWith('.js'))
  const style = outputs.find((f) => f.endsWith('.css'))
  if (!script || !style) throw new Error(`buildUi: expected a .js and a .css output, got ${outputs.join(', ')}`)

  const template = readFileSync(join(appDir, 'index.html'), 'utf8')
  const html = template.replace('%SCRIPT%', `/static/${script}`).replace('%STYLE%', `/static/${style}`)
  writeFileSync(join(outDir, 'index.html'), html)
  writeFileSync(join(outDir, 'favicon.svg'), FAVICON)

  const files = listFiles(outDir)
  const gzipBytes = ['index.html', `static/${script}`, `static/${style}`]
    .map((f) => gzipSync(readFileSync(join(outDir, f)), { level: 9 }).length)
    .reduce((a, b) => a + b, 0)
  return { files, gzipBytes }
}
