/**
 * @module test/support/requireRestic
 * The restic tests' first step: the `restic` binary must run here. Without it the suite fails naming the
 * package to install (it is never skipped), before any folder or server is set up.
 */
import { resticVersion } from '../../src/repository/restic/resticVersion.js'

export async function requireRestic(): Promise<void> {
  await resticVersion().catch((err: Error) => {
    throw new Error(`the restic binary is needed (apt-get install restic): ${err.message}`)
  })
}
