/**
 * @module repository/retentionPlan
 * Which snapshots a retention policy keeps: the newest `last`, plus the newest snapshot of each of the
 * newest `daily` days, `weekly` ISO weeks and `monthly` months that have one (restic's and borg's
 * rules). The rules combine as a union: a snapshot kept by any rule stays. Buckets are UTC calendar
 * periods, so the result does not depend on the machine's time zone.
 */
import type { RetentionConfig } from '../config/types.js'

export interface DatedSnapshot {
  name: string
  createdAt: Date
}

const day = (d: Date) => d.toISOString().slice(0, 10)
const month = (d: Date) => d.toISOString().slice(0, 7)

/** ISO 8601 week, e.g. `2026-W05` (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeek(d: Date): string {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()))
  const weekday = t.getUTCDay() || 7
  t.setUTCDate(t.getUTCDate() + 4 - weekday)
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1)
  const week = Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7)
  return `${t.getUTCFullYear()}-W${String(week).padStart(2, '0')}`
}

/** True when the policy deletes anything at all (an empty policy keeps every snapshot). */
export function hasRules(policy: RetentionConfig | undefined): policy is RetentionConfig {
  return Boolean(policy && (policy.last ?? policy.daily ?? policy.weekly ?? policy.monthly))
}

/** Names of the snapshots to keep. */
export function snapshotsToKeep(snapshots: DatedSnapshot[], policy: RetentionConfig): Set<string> {
  const newestFirst = [...snapshots].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.name.localeCompare(a.name))
  if (!hasRules(policy)) return new Set(newestFirst.map((s) => s.name))
  const keep = new Set(newestFirst.slice(0, policy.last ?? 0).map((s) => s.name))
  const buckets: [number | undefined, (d: Date) => string][] = [
    [policy.daily, day],
    [policy.weekly, isoWeek],
    [policy.monthly, month],
  ]
  for (const [count, bucketOf] of buckets) {
    if (!count) continue
    const seen = new Set<string>()
    for (const snapshot of newestFirst) {
      if (seen.size >= count) break
      const bucket = bucketOf(snapshot.createdAt)
      if (seen.has(bucket)) continue
      seen.add(bucket)
      keep.add(snapshot.name)
    }
  }
  return keep
}

/** `daily 7, last 3` for log lines. */
export function describePolicy(policy: RetentionConfig): string {
  return (['last', 'daily', 'weekly', 'monthly'] as const)
    .filter((key) => policy[key] !== undefined)
    .map((key) => `${key} ${policy[key]}`)
    .join(', ')
}
