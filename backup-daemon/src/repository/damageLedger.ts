/**
 * @module repository/damageLedger
 * What verifies found, kept so that the listing says it: a copy that failed its verify is shown damaged
 * (the API's `damaged`/`damageReason`, the UI, `snapshots`) until a later verify of that copy passes, and
 * is not what a download serves. One file per job, `<dataDir>/damage/<job>.json` (0600, written whole under
 * a temporary name), re-read when its mtime changed: a `backup-daemon verify` beside the daemon is seen by it.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** One copy's failed verify. */
export interface Damage {
  /** What the verify found, one line. */
  reason: string
  /** When (RFC 3339). */
  at: string
}

export interface DamageLedger {
  /** The failed verify of `snapshot` on `storage`, if its last verify failed. */
  damageOf(storage: string, snapshot: string): Damage | undefined
  /** A verify of `snapshot` on `storage` ended: a failure is kept, a pass clears it. */
  note(storage: string, snapshot: string, result: { ok: boolean; problems: string[] }): void
}

/** Copies kept per job; the oldest go first (a forgotten snapshot's entry is not worth a listing to find it). */
const kept = 500

type LedgerFile = { version: 1; damaged: Record<string, Damage> }

const keyOf = (storage: string, snapshot: string) => `${storage}\u0000${snapshot}`

export function damageLedger(dataDir: string, job: string): DamageLedger {
  const file = join(dataDir, 'damage', `${encodeURIComponent(job).replace(/^\./, '%2E')}.json`)
  let cache: { mtime: number; damaged: Record<string, Damage> } | undefined
  const mtime = () => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? -1
  const load = (): Record<string, Damage> => {
    const now = mtime()
    if (cache && cache.mtime === now) return cache.damaged
    let damaged: Record<string, Damage> = {}
    if (now !== -1) {
      try {
        const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LedgerFile>
        if (parsed.damaged && typeof parsed.damaged === 'object') damaged = parsed.damaged
      } catch {
        // Unreadable: nothing known to be damaged (the next verify writes it anew).
      }
    }
    cache = { mtime: now, damaged }
    return damaged
  }
  return {
    damageOf: (storage, snapshot) => load()[keyOf(storage, snapshot)],
    note(storage, snapshot, result) {
      const damaged = { ...load() }
      const key = keyOf(storage, snapshot)
      if (result.ok) {
        if (!(key in damaged)) return
        delete damaged[key]
      } else {
        delete damaged[key]
        damaged[key] = { reason: result.problems.join('; ') || 'the verify failed', at: new Date().toISOString() }
      }
      const entries = Object.entries(damaged).slice(-kept)
      mkdirSync(join(dataDir, 'damage'), { recursive: true, mode: 0o700 })
      const temp = `${file}.${process.pid}.tmp`
      writeFileSync(temp, `${JSON.stringify({ version: 1, damaged: Object.fromEntries(entries) } satisfies LedgerFile)}\n`, { mode: 0o600 })
      renameSync(temp, file)
      cache = { mtime: mtime(), damaged: Object.fromEntries(entries) }
    },
  }
}

/** A ledger that knows nothing (a repository opened without a data folder: tests, tools). */
export const noDamageLedger: DamageLedger = { damageOf: () => undefined, note: () => {} }
