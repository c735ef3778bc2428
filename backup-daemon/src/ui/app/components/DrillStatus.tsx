/** @jsxImportSource preact */
/**
 * @module ui/app/components/DrillStatus
 * The job's restore drill at a glance: "Restore proven 3 hours ago" (the newest drill of the run history that
 * proved a copy), "Drill failed: <what differed>" when the newest drill failed, "Not proven on 1 storage(s):
 * <why>" when it had nothing to compare a copy with (a zip, a snapshot without a record), and, where restores are
 * allowed, a "Drill now" button that starts one (`POST /jobs/{name}/drill`) and follows the task until it
 * ends, showing its progress (verifying, then restoring and comparing) from its first poll on. A drill is
 * read from the history, so one started elsewhere (CLI, another tab) shows here too.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, type TaskView } from '../api.js'
import { drillProvedSomething, type RunRecord } from '../../../runs/history.js'
import { RelativeTime } from './RelativeTime.js'
import { RunProgressView } from './RunProgressView.js'

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
  const [task, setTask] = useState<TaskView>()
  const [problem, setProblem] = useState<string>()

  const load = () =>
    api.history(name).then(
      ({ runs }) => {
        const drills = runs.filter((r) => r.kind === 'drill')
        setLatest({ last: drills.find((r) => r.result !== 'cancelled'), proven: drills.find(drillProvedSomething) })
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
          if (task && (task.status === 'running' || task.status === 'cancelling')) return setTask(task)
          setRunning(false)
          setTask(undefined)
          void load()
          onEnded?.()
        },
        () => setRunning(false),
      )
    // At once, then twice a second: a drill's verify alone may take a while, and it is shown as it goes.
    void poll()
    const timer = setInterval(() => void poll(), 500)
    return () => clearInterval(timer)
  }, [running, name])

  const start = async () => {
    setProblem(undefined)
    try {
      setTask((await api.drill(name)).task)
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
        ) : last?.notProven?.length ? (
          <span class="drill-unproven" data-drill="unproven">
            Not proven on {last.notProven.length} storage(s): {last.notProven[0]}
            {proven && proven !== last && (
              <>
                {' '}
                (last proven <RelativeTime time={proven.endedAt} />)
              </>
            )}
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
      {running && task?.progress && task.progress.kind === 'drill' && <RunProgressView progress={task.progress} />}
      {problem && (
        <p class="feedback error" role="alert">
          {problem}
        </p>
      )}
    </div>
  )
}
