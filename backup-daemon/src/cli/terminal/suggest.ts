/**
 * @module cli/terminal/suggest
 * The nearest of a list of words to a misspelled one (Damerau-Levenshtein distance, optimal string
 * alignment): for "did you mean `snapshots`?" after an unknown command or a misspelled config key.
 */

function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The candidate nearest to `word` (case ignored), or undefined when none is close: the only candidate
 * it begins (`--stor` → `storage`), else one at most a third of the word's length away (at least 1, at
 * most 3 edits), so "frobnicate" suggests nothing.
 */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase()
  const list = [...candidates]
  const prefixed = lower.length >= 3 ? list.filter((candidate) => candidate.toLowerCase().startsWith(lower)) : []
  if (prefixed.length === 1) return prefixed[0]
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)))
  let best: { candidate: string; score: number } | undefined
  for (const candidate of list) {
    const score = distance(lower, candidate.toLowerCase())
    if (score <= limit && (!best || score < best.score)) best = { candidate, score }
  }
  return best?.candidate
}
