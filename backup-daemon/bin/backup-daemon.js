#!/usr/bin/env node
// The `backup-daemon` command. The daemon is written in TypeScript (DESIGN.md). Registering tsx's
// loader costs every process a hooks thread with its own V8 isolate that compiles each module
// (~15 MiB of RSS against a 150 MiB target, measured), so the launcher compiles the CLI once with
// esbuild (tsx's own dependency) into a cache folder and imports that with plain node; it falls back
// to tsx when esbuild or the folder is not available. See bin/bundleCli.js.
import v8 from 'node:v8'

// The young generation otherwise grows to 2 x 16 MiB of semi-spaces while gigabytes stream through
// short-lived buffers: kept at its starting size, a large backup's peak RSS drops by 10 to 30 MiB
// (measured, bench/daemon-sqlite-remote.bench.ts) for no measurable loss of throughput.
v8.setFlagsFromString('--semi-space-growth-factor=1')

const { bundledCli } = await import('./bundleCli.js')
const entry = await bundledCli()
if (entry) {
  await import(entry)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}
