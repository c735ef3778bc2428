/**
 * @module test/support/serviceUser
 * The daemon run as a user other than root, as it runs under systemd (the Debian unit's service user):
 * a temp folder of `nobody`'s own to hold its config and data folder, for `runCli(..., { user: 'nobody' })`.
 * The suite runs as root; without root no other user can be taken, and the test fails saying so.
 */
import { spawnSync } from 'node:child_process'
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { waitFor } from '../engine/helpers.js'
import { assertReadableBy } from './readableBy.js'
import { daemonBin } from './runCli.js'

/** nobody:nogroup on Debian. */
const nobody = { uid: 65534, gid: 65534 }

export async function nobodyFolder(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  if (process.getuid?.() !== 0) throw new Error('needs root (setpriv to run the daemon as nobody)')
  assertReadableBy('nobody', daemonBin)
  const dir = await mkdtemp(join(tmpdir(), prefix))
  await chmod(dir, 0o755)
  await chown(dir, nobody.uid, nobody.gid)
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * Resolves once no process of nobody's matches `pgrep`'s `pattern` (`-x`: the exact name, `-f`: the command
 * line); a server a drill stopped leaves the process table a moment after its stop returned. Fails after 10 s.
 */
export async function noProcessOfNobody(match: '-x' | '-f', pattern: string, what: string): Promise<void> {
  const left = () => spawnSync('pgrep', ['-u', 'nobody', match, pattern], { encoding: 'utf8' }).stdout.trim()
  await waitFor(() => left() === '', 10_000, `no ${what} of nobody is left`)
}
