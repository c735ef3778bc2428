/**
 * @module engine/progress/countLocalTrees
 * The total size of a job's `local` sources, counted before (and while) the run reads them, for the
 * progress' percentage and ETA when no previous run gives an estimate. Files only, excludes applied;
 * links are not followed. Stops early when `signal` aborts (the run ended first).
 */
import { lstat, opendir } from 'node:fs/promises'
import { join } from 'node:path'
import { excludeMatcher } from '../../sources/support/excludeMatcher.js'

export interface LocalTree {
  path: string
  exclude?: string[]
}

export async function countLocalTrees(trees: LocalTree[], signal: AbortSignal): Promise<number> {
  let total = 0
  for (const tree of trees) {
    const excluded = excludeMatcher(tree.exclude ?? [])
    const walk = async (relative: string): Promise<void> => {
      const dir = await opendir(join(tree.path, relative)).catch(() => undefined)
      if (!dir) return
      for await (const entry of dir) {
        signal.throwIfAborted()
        const path = relative ? `${relative}/${entry.name}` : entry.name
        if (excluded(path)) continue
        if (entry.isDirectory()) await walk(path)
        else if (entry.isFile()) total += (await lstat(join(tree.path, path)).catch(() => undefined))?.size ?? 0
      }
    }
    await walk('')
  }
  return total
}
