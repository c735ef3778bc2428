/**
 * @module archive/memoryGovernor
 * Keeps the daemon's memory flat while it moves gigabytes. gzip (and every file read) hands out a
 * fresh Buffer per chunk; V8 frees them only at a garbage collection, and it lets tens of MiB of dead
 * buffers pile up first (measured here: gzip of 128 MiB alone raised peak RSS by 37 MiB; with a
 * collection every 8 MiB, by 9 MiB). So the archive writer asks for a collection after every `every`
 * bytes. Measured on a 222 MiB tree through `backup-daemon run`: peak RSS 178 MiB without, 155 MiB
 * every 16 MiB, 130 MiB every 4 MiB (the process holds ~122 MiB before reading anything).
 *
 * The collection is a minor one (a scavenge of the young generation, ~0.3 ms), which is where a chunk's
 * Buffer dies. It used to ask for `{ type: 'major' }`, which Node 20's V8 reads as a scavenge anyway
 * (`--trace-gc` prints "Scavenge ... testing"), so every figure above and in the README was measured with
 * scavenges. Node 24's V8 honours it: a full mark-compact, with parallel marking on the platform threads,
 * every 4 MiB. Measured on Node 24, 1 GiB tree: `tar.zst` 13.8-17.2 s against 7.5-7.7 s, plain `tar`
 * 10-11 s against 2.9-3.5 s, 200k tiny files 15.4 s against 4.3 s; peak RSS 102-127 MiB against
 * 111-146 MiB. Adding a full collection every 64 MiB still cost ~4 CPU-s a GiB on Node 24, so none is asked.
 */
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'

type Collect = (options?: { type?: 'major' | 'minor' }) => void

let collect: Collect | undefined | null = null

/** V8's `gc()`, without starting node with `--expose-gc` (the flag only exposes it to new contexts). */
function collector(): Collect | undefined {
  if (collect === null) {
    try {
      v8.setFlagsFromString('--expose-gc')
      collect = runInNewContext('gc') as Collect
    } catch {
      collect = undefined
    }
  }
  return collect
}

/** Returns `account(bytes)`: call it for every chunk that passes; it collects garbage every `every` bytes. */
export function memoryGovernor(every = 4 * 1024 * 1024): (bytes: number) => void {
  let since = 0
  return (bytes) => {
    since += bytes
    if (since < every) return
    since = 0
    collector()?.({ type: 'minor' })
  }
}
