#!/usr/bin/env node
// The `backup-daemon` command.
// - Installed from the package (npm pack / npm install -g): runs the JavaScript build in `dist/` (tsc at
//   pack time, package.json `prepack`) with plain node. Nothing is compiled or written at start, so a
//   root-owned global install and the systemd unit's ProtectSystem=strict work, and no build tool is a
//   runtime dependency.
// - In the repository (the TypeScript sources are next to it; the package ships no `src/`): runs the
//   sources. Registering tsx's loader costs every process a hooks thread with its own V8 isolate
//   (~15 MiB of RSS, measured), so it compiles the CLI once with esbuild (a dev dependency) into
//   node_modules/.cache and imports that, falling back to tsx (bin/bundleCli.js, BACKUP_DAEMON_TSX=1).
import { existsSync } from 'node:fs'
import v8 from 'node:v8'

// The young generation otherwise grows to 2 x 16 MiB of semi-spaces while gigabytes stream through
// short-lived buffers: kept at its starting size, a large backup's peak RSS drops by 10 to 30 MiB
// (measured, bench/daemon-sqlite-remote.bench.ts) for no measurable loss of throughput.
v8.setFlagsFromString('--semi-space-growth-factor=1')

if (!existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  await import('../dist/cli/main.js')
} else {
  const { bundledCli } = await import('./bundleCli.js')
  const entry = await bundledCli()
  if (entry) {
    await import(entry)
  } else {
    const { register } = await import('tsx/esm/api')
    register()
    await import('../src/cli/main.ts')
  }
}
