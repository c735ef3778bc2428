/**
 * @module test/support/freshAppInstall
 * The plugins' README "Install" commands, run as written: each README's first `sh` block is run in this
 * repository (`npm pack -w <plugin> --pack-destination …`), its second in the app's folder
 * (`npm install <tarball>`). And the Payload versions a fresh app is tried on: the registry's `latest` and
 * the release before it, the versions people have today.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

export interface ReadmeInstall {
  readme: string
  /** The "## Install" section, up to the next `## ` heading. */
  section: string
  /** Lines of the first `sh` block: run in a checkout of this repository. */
  inRepository: string[]
  /** Lines of the second `sh` block: run in the app's folder. */
  inApp: string[]
  /** The tarball the app's `npm install` names (absolute path). */
  tarball: string
}

/** The install commands of a README (relative to the repository root). */
export function readmeInstall(readme: string): ReadmeInstall {
  const text = readFileSync(join(repoRoot, readme), 'utf8')
  const start = text.indexOf('\n## Install\n')
  if (start === -1) throw new Error(`${readme} has no "## Install" section`)
  const end = text.indexOf('\n## ', start + 1)
  const section = text.slice(start, end === -1 ? undefined : end)
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#')),
  )
  const [inRepository, inApp] = blocks
  if (!inRepository?.length || !inApp?.length) throw new Error(`${readme}: "## Install" needs a sh block for the repository and one for the app`)
  const tarball = inApp.join(' ').match(/\s(\/\S+\.tgz)\b/)?.[1]
  if (!tarball) throw new Error(`${readme}: the app's install command names no tarball path`)
  return { inApp, inRepository, readme, section, tarball }
}

export interface CommandRun {
  command: string
  output: string
}

/** Runs README lines as written (a shell, in `cwd`); throws with the output of the first that fails. */
export function runAsWritten(lines: string[], cwd: string, env: NodeJS.ProcessEnv): CommandRun[] {
  return lines.map((command) => {
    const result = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024, timeout: 900_000 })
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
    if (result.status !== 0) throw new Error(`\`${command}\` in ${cwd} failed (exit ${result.status ?? result.signal}):\n${output.slice(-4000)}`)
    return { command, output }
  })
}

export interface PackedPlugin {
  name: string
  /** Absolute path of the tarball, where the README's pack command wrote it. */
  tarball: string
  sha256: string
  /** Paths inside the tarball. */
  files: string[]
}

/** Runs a README's repository commands (the pack) and describes the tarball they wrote. */
export function packAsWritten(install: ReadmeInstall, env: NodeJS.ProcessEnv): PackedPlugin {
  runAsWritten(install.inRepository, repoRoot, env)
  if (!existsSync(install.tarball)) throw new Error(`${install.readme}: the pack wrote no ${install.tarball} (is the version in the README current?)`)
  const bytes = readFileSync(install.tarball)
  const list = spawnSync('tar', ['-tzf', install.tarball], { encoding: 'utf8' })
  if (list.status !== 0) throw new Error(`tar -tzf ${install.tarball}: ${list.stderr}`)
  const files = list.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''))
  const manifest = spawnSync('tar', ['-xzOf', install.tarball, 'package/package.json'], { encoding: 'utf8' })
  const name = (JSON.parse(manifest.stdout) as { name: string }).name
  return { files, name, sha256: createHash('sha256').update(bytes).digest('hex'), tarball: install.tarball }
}

/** Payload's `latest` on the registry and the stable release before it (e.g. 3.90.2 and 3.90.1). */
export function payloadVersionsUnderTest(): { latest: string; previous: string } {
  const result = spawnSync('npm', ['view', 'payload', 'dist-tags.latest', 'versions', '--json'], { encoding: 'utf8', timeout: 120_000 })
  if (result.status !== 0) throw new Error(`npm view payload failed: ${result.stderr}`)
  const info = JSON.parse(result.stdout) as { 'dist-tags.latest': string; versions: string[] }
  const latest = info['dist-tags.latest']
  const parse = (v: string) => v.split('.').map(Number)
  const before = (a: string, b: string) => {
    const [x, y] = [parse(a), parse(b)]
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!
    return false
  }
  const stable = info.versions.filter((v) => /^\d+\.\d+\.\d+$/.test(v) && before(v, latest))
  const previous = stable.sort((a, b) => (before(a, b) ? -1 : 1)).at(-1)
  if (!previous) throw new Error(`no stable payload release before ${latest}`)
  return { latest, previous }
}
