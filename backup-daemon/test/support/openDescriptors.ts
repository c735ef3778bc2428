/**
 * Descriptors of this process open on something under `root` (worker threads share the process's
 * descriptors, so theirs count too): tests check a cancelled walk leaves none behind.
 */
import { readdirSync, readlinkSync } from 'node:fs'

export function openDescriptorsUnder(root: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(root)
    } catch {
      // Closed since the listing (the listing's own descriptor among them).
      return false
    }
  }).length
}
