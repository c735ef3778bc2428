/**
 * @module test/support/readableBy
 * Tests that run the daemon as another user (`setpriv --reuid=nobody`) need that user to reach the
 * checkout: a clone in a private folder (`mktemp -d` makes it 0700) fails with Node's "Cannot find module",
 * which says nothing of the cause. This check fails first, naming the path and the fix.
 */
import { spawnSync } from 'node:child_process'

export function assertReadableBy(user: string, path: string): void {
  const probe = spawnSync('setpriv', [`--reuid=${user}`, '--regid=nogroup', '--clear-groups', 'test', '-r', path])
  if (probe.error) throw new Error(`setpriv is needed to run as ${user} (util-linux): ${probe.error.message}`)
  if (probe.status !== 0) {
    throw new Error(`user ${user} cannot read ${path}: the checkout's folders must be reachable by other users (chmod o+rx on each folder above it)`)
  }
}
