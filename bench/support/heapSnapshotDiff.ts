/**
 * @module bench/support/heapSnapshotDiff
 * What grew between two V8 heap snapshots (`v8.writeHeapSnapshot`): objects counted and sized by
 * constructor (or, for strings, closures and arrays, by kind), the names whose count grew most first.
 * Enough to tell a leak (one constructor growing with every request) from a heap that only sized up.
 */
import { readFileSync } from 'node:fs'

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } }
  nodes: number[]
  strings: string[]
}

/** Count and self size per constructor name (kinds other than objects are grouped by kind). */
export function summarizeSnapshot(path: string): Map<string, { count: number; size: number }> {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Snapshot
  const fields = data.snapshot.meta.node_fields
  const types = data.snapshot.meta.node_types[0]
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number]
  const summary = new Map<string, { count: number; size: number }>()
  for (let i = 0; i < data.nodes.length; i += fields.length) {
    const type = types[data.nodes[i + typeAt]!]!
    const name = type === 'object' || type === 'closure' ? `${type === 'closure' ? 'closure ' : ''}${data.strings[data.nodes[i + nameAt]!]}` : `(${type})`
    const entry = summary.get(name) ?? { count: 0, size: 0 }
    entry.count++
    entry.size += data.nodes[i + sizeAt]!
    summary.set(name, entry)
  }
  return summary
}

/** The `top` names whose object count grew most from `before` to `after`, one line each. */
export function snapshotGrowth(before: string, after: string, top = 15): string[] {
  const a = summarizeSnapshot(before)
  const b = summarizeSnapshot(after)
  return [...b.entries()]
    .map(([name, { count, size }]) => ({ count: count - (a.get(name)?.count ?? 0), name, size: size - (a.get(name)?.size ?? 0) }))
    .sort((x, y) => y.count - x.count)
    .slice(0, top)
    .map(({ count, name, size }) => `${count >= 0 ? '+' : ''}${count} objects, ${(size / 1024).toFixed(1)} KiB: ${name.slice(0, 100)}`)
}
