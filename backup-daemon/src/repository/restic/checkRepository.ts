/**
 * @module repository/restic/checkRepository
 * What `check-config` finds of one restic repository (issue 38): it opens with the password, it is not
 * there yet (the first run creates it), the password is refused (a problem: every run would fail), or it
 * could not be reached, with restic's reason (said, not a failure: a storage may be down while the file is right).
 * Read only: `cat config --no-lock --no-cache` neither locks the repository nor writes a cache.
 */
import type { ResticStorageConfig } from '../../storages/restic/index.js'
import { redactSecrets } from '../../logs/redactSecrets.js'
import { restic, ResticError } from './resticProcess.js'
import { isMissing, targetOf } from './resticSession.js'

/** A line of `check-config`; a problem makes it exit 1. */
export interface RepositoryNote {
  text: string
  problem?: boolean
}

/** Long enough for a slow SSH login or S3 round trip; a host that never answers must not hold check-config. */
const checkTimeoutMs = 20_000

export async function checkResticRepository(entry: ResticStorageConfig, dataDir: string): Promise<RepositoryNote> {
  const target = { ...targetOf(entry, dataDir), extraParams: [...(entry.extraParams ?? []), '--no-cache'] }
  const where = `restic "${entry.name}" (${redactSecrets(entry.repository)})`
  try {
    await restic(target, ['cat', 'config', '--no-lock'], { signal: AbortSignal.timeout(checkTimeoutMs) })
    return { text: `${where}: the repository opens with its password` }
  } catch (err) {
    if (isMissing(err)) return { text: `${where}: no repository there yet; the first run creates it` }
    const stderr = err instanceof ResticError ? err.stderr : ''
    // restic's own words (its last lines, joined, credentials taken out): the tool's reason, then its verdict.
    if (/wrong password|no key found/i.test(stderr)) return { problem: true, text: `${where}: restic refuses the password: ${stderr}` }
    const timedOut = (err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError'
    return { text: `${where}: could not be checked: ${timedOut ? `no answer in ${checkTimeoutMs / 1000} s` : stderr || (err as Error).message}` }
  }
}
