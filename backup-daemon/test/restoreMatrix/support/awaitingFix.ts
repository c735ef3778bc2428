/**
 * @module test/restoreMatrix/support/awaitingFix
 * Cells of the matrix that fail today for a known bug run all the same and must STILL FAIL for exactly
 * the listed bugs: so the branch stays green while a bug is open, and the lists shrink as fixes land.
 *
 * A failure is cut into its items: each line of a comparison ("files/ differs from the source:" then one
 * line per difference, each item read as `files/: <line>`), or the whole message of any other error. Every item must match an entry listing
 * the cell (else the cell fails: something new broke), and every entry listing the cell must match an
 * item (else the cell fails with "remove it from awaitingFix": that bug is gone from this cell). A listed
 * cell that passes fails the same way.
 */

/** One bug and the cells it fails. */
export interface AwaitingFix {
  /** Cell ids `<storage>/<path>/<check>`; `*` matches within one segment. Several may be given. */
  cells: string | string[]
  /** The bug, in the words of issue 37 (or why it is not the daemon's). */
  bug: string
  /** What the failure (or one line of the difference) says today. */
  message: RegExp
}

const globOf = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  )

/** The entries listing cell `id`. */
export function entriesFor(list: readonly AwaitingFix[], id: string): AwaitingFix[] {
  return list.filter((entry) => (Array.isArray(entry.cells) ? entry.cells : [entry.cells]).some((cells) => globOf(cells).test(id)))
}

/** A failure's items: the lines of a difference, or the whole message. */
export function itemsOf(message: string): string[] {
  const match = /^([^\n]*) differs from the source:\n([\s\S]*)$/.exec(message)
  if (!match) return [message]
  return match[2]!.split('\n').map((line) => `${match[1]}: ${line.trim()}`)
}

/** Why a cell's outcome does not match its entries, or undefined when it does. */
export function judge(id: string, entries: readonly AwaitingFix[], error: Error | undefined): string | undefined {
  if (entries.length === 0) return error ? error.message : undefined
  if (!error) return `cell ${id} passes now: remove it from awaitingFix (${entries.map((e) => `"${e.bug}"`).join(', ')})`
  const items = itemsOf(error.message)
  const unexplained = items.filter((item) => !entries.some((entry) => entry.message.test(item)))
  const gone = entries.filter((entry) => !items.some((item) => entry.message.test(item)))
  const problems: string[] = []
  if (gone.length) problems.push(`cell ${id} no longer fails for ${gone.map((e) => `"${e.bug}"`).join(', ')}: remove it from awaitingFix for that`)
  if (unexplained.length) problems.push(`cell ${id} fails for what awaitingFix does not list:\n  ${unexplained.join('\n  ')}`)
  return problems.length ? `${problems.join('\n')}\n(the whole failure: ${error.message})` : undefined
}

/** Defines the mocha test of one cell, judged against `lists` (awaitingFix, and the tools' limits). */
export function cell(lists: readonly AwaitingFix[], id: string, body: () => Promise<void>): void {
  const entries = entriesFor(lists, id)
  it(entries.length ? `${id} (awaitingFix: ${entries.length} bug(s))` : id, async function () {
    let error: Error | undefined
    try {
      await body()
    } catch (err) {
      error = err as Error
    }
    const problem = judge(id, entries, error)
    if (problem) throw error && entries.length === 0 ? error : new Error(problem, { cause: error })
  })
}
