/**
 * @module repository/restic/resticVersion
 * Which restic is installed, and what the daemon can do with it. The floor is 0.14 (Debian 12's
 * package): it has everything the daemon needs (repository format 2 with compression, `backup --json`,
 * `dump --archive tar`, `snapshots --json`, `check --read-data-subset`). Newer versions only add
 * conveniences; each feature that needs one is named here with its version, so an operator reading
 * `backup-daemon check-config` knows why a flag is not used.
 */
import { restic, type ResticTarget } from './resticProcess.js'

export interface ResticVersion {
  major: number
  minor: number
  patch: number
  text: string
}

export const minimumVersion = { major: 0, minor: 14, patch: 0 } as const

/** A feature, the version that brought it, and what the daemon does without it. */
export interface ResticFeature {
  name: string
  since: [major: number, minor: number]
  without: string
}

export const resticFeatures = {
  retryLock: {
    name: '`--retry-lock`',
    since: [0, 16],
    without: 'a command that finds the repository locked by another daemon is retried by the daemon itself (every 5 s, up to 5 min)',
  },
  skipIfUnchanged: {
    name: '`backup --skip-if-unchanged`',
    since: [0, 17],
    without: 'an unchanged source still writes a snapshot; the repository grows by its metadata only (a few KiB)',
  },
} as const satisfies Record<string, ResticFeature>

export type ResticFeatureName = keyof typeof resticFeatures

/** Parses `restic 0.14.0 compiled with go1.19.8 on linux/amd64` (and `0.17.3-dev`-style versions). */
export function parseResticVersion(text: string): ResticVersion | undefined {
  const match = /restic\s+(\d+)\.(\d+)\.(\d+)/.exec(text)
  if (!match) return undefined
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), text: match[0] }
}

export function atLeast(version: ResticVersion, [major, minor]: readonly [number, number]): boolean {
  return version.major > major || (version.major === major && version.minor >= minor)
}

export function supports(version: ResticVersion, feature: ResticFeatureName): boolean {
  return atLeast(version, resticFeatures[feature].since)
}

/**
 * `check-config`'s one line: the version, and the newer features it lacks with the version that brings each
 * (what the daemon does without them is in the README's restic section, not repeated on every check).
 */
export function describeVersion(version: ResticVersion): string {
  const lacking = (Object.values(resticFeatures) as ResticFeature[]).filter((feature) => !atLeast(version, feature.since))
  const newer = lacking.length ? `; newer adds ${lacking.map((feature) => `${feature.name} (${feature.since.join('.')})`).join(', ')}` : ''
  return `${version.text} (minimum ${minimumVersion.major}.${minimumVersion.minor}${newer})`
}

const cache = new Map<string, Promise<ResticVersion>>()

/** The installed restic's version (asked once per binary); rejects below the minimum, saying so. */
export function resticVersion(binary = 'restic'): Promise<ResticVersion> {
  let known = cache.get(binary)
  if (!known) {
    known = readVersion(binary)
    cache.set(binary, known)
    known.catch(() => cache.delete(binary))
  }
  return known
}

async function readVersion(binary: string): Promise<ResticVersion> {
  // `version` needs no repository; an empty one keeps restic from reading RESTIC_REPOSITORY of the daemon's environment.
  const target: ResticTarget = { binary, repository: '' }
  // 0.17+ answers `--json` with `{"version": "0.17.3", …}`; older versions ignore the flag and print the text line.
  const printed = await restic(target, ['version', '--json'])
  let text = printed
  try {
    text = `restic ${(JSON.parse(printed) as { version?: string }).version ?? ''}`
  } catch {
    // The text form.
  }
  const version = parseResticVersion(text)
  if (!version) throw new Error(`cannot read the restic version from "${text.trim().slice(0, 80)}"`)
  if (!atLeast(version, [minimumVersion.major, minimumVersion.minor])) {
    throw new Error(`${version.text} is too old: the daemon needs restic ${minimumVersion.major}.${minimumVersion.minor} or newer`)
  }
  return version
}
