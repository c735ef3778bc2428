/** @jsxImportSource preact */
/**
 * @module ui/app/components/DrillStatus
 * The job's restore drill at a glance: "Restore proven 3 hours ago" (the newest successful drill of the run
 * history), or "Drill failed: <what differed>" when the newest drill failed, and, where restores are
 * allowed, a "Drill now" button that starts one (`POST /jobs/{name}/drill`) and follows the task until it
 * ends. A drill is read from the history, so one started elsewhere (CLI, another tab) shows here too.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../api.js'
import type { RunRecord } from '../../../runs/history.js'
import { RelativeTime } from './RelativeTime.js'

interface DrillStatusProps {
  name: string
  /** `allowRestore`: the button is shown. */
  canDrill: boolean
  /** Bumped when something may have added a drill to the history. */
  version: number
  /** A drill started here ended. */
  onEnded?(): void
}

export function DrillStatus({ name, canDrill, version, onEnded }: DrillStatusProps) {
  const [latest, setLatest] = useState<{ last?: RunRecord; proven?: RunRecord }>()
  const [running, setRunning] = useState(false)
  const [problem, setProblem] = useState<string>()

  const load = () =>
    api.history(name).then(
      ({ runs }) => {
        const drills = runs.filter((r) => r.kind === 'drill')
        setLatest({ last: drills.find((r) => r.result !== 'cancelled'), proven: drills.find((r) => r.result === 'success') })
      },
      () => {},
    )
  useEffect(() => void load(), [name, version])

  // While a drill started here runs: poll the task until it has ended, then read the history again.
  useEffect(() => {
    if (!running) return
    const poll = () =>
      api.currentTask(name).then(
        ({ task }) => {
          if (task && (task.status === 'running' || task.status === 'cancelling')) return
          setRunning(false)
          void load()
          onEnded?.()
        },
        () => setRunning(false),
      )
    const timer = setInterval(() => void poll(), 1000)
    return () => clearInterval(timer)
  }, [running, name])

  const start = async () => {
    setProblem(undefined)
    try {
      await api.drill(name)
      setRunning(true)
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) setProblem('Not started: a backup or another task of this job is running.')
      else if (err instanceof ApiError && err.status === 404) setProblem('Not started: no snapshot to drill yet.')
      else setProblem(`Not started: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  const { last, proven } = latest ?? {}
  return (
    <div class="drill-status" data-testid="drill-status">
      <span class="drill-state">
        {running ? (
          <span>Drilling: restoring the newest snapshot into a scratch folder…</span>
        ) : last?.result === 'failed' ? (
          <span class="drill-failed" data-drill="failed">
            Drill failed: {last.error ?? 'unknown error'}
          </span>
        ) : proven ? (
          <span class="drill-proven" data-drill="proven">
            Restore proven <RelativeTime time={proven.endedAt} />
          </span>
        ) : (
          latest && <span class="muted">No restore drill yet</span>
        )}
      </span>
      {canDrill && (
        <button onClick={() => void start()} disabled={running}>
          {running ? 'Drilling…' : 'Drill now'}
        </button>
      )}
      {problem && (
        <p class="feedback error" role="alert">
          {problem}
        </p>
      )}
    </div>
  )
}
