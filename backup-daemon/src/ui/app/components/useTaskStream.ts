/**
 * @module ui/app/components/useTaskStream
 * Follows a running restore or verify task over `GET /jobs/{name}/tasks/current/progress` (server-sent
 * events, cookie sent along): each `progress` frame becomes the task's progress; the `end` frame (the
 * task's history record) closes the stream, and the ended task is read once from `tasks/current` for
 * its one-line summary. Returns whether the stream is feeding the task: when it fails (an old daemon,
 * a proxy that buffers, a dropped connection) it is closed for good and the caller polls instead.
 */
import { useEffect, useState } from 'preact/hooks'
import type { RunRecord } from '../../../runs/history.js'
import type { RunProgress } from '../../../runs/progress.js'
import { api, API_BASE, type TaskView } from '../api.js'

type TaskUpdate = (next: (task: TaskView | undefined) => TaskView | undefined) => void

const running = (task: TaskView) => task.status === 'running' || task.status === 'cancelling'

/** The ended task from its record, when `tasks/current` cannot be read. */
const fromRecord = (task: TaskView, record: RunRecord): TaskView => ({
  ...task,
  status: record.result,
  endedAt: record.endedAt,
  ...(record.error !== undefined && { error: record.error }),
})

export function useTaskStream(job: string, task: TaskView | undefined, update: TaskUpdate): boolean {
  // The task whose stream failed; any other running task is followed by the stream (from the first render, so no poll slips in).
  const [failed, setFailed] = useState<string>()
  const id = task && running(task) ? task.id : undefined
  const supported = typeof EventSource !== 'undefined'
  useEffect(() => {
    if (!id || !supported) return
    const events = new EventSource(`${API_BASE}/jobs/${encodeURIComponent(job)}/tasks/current/progress`)
    let done = false
    const stop = (feeding: boolean) => {
      done = true
      events.close()
      if (!feeding) setFailed(id)
    }
    events.addEventListener('progress', (event) => {
      const progress = JSON.parse((event as MessageEvent<string>).data) as RunProgress
      update((t) => (t && t.id === id && running(t) ? { ...t, progress } : t))
    })
    events.addEventListener('end', (event) => {
      const record = JSON.parse((event as MessageEvent<string>).data) as RunRecord
      // Another task's end (ours was replaced meanwhile): let polling sort it out.
      if (record.id !== id) return stop(false)
      // Still "live" until the final view is in: polling would only race it.
      stop(true)
      api.currentTask(job).then(
        (r) => update((t) => (t && r.task?.id === id ? r.task : t && fromRecord(t, record))),
        () => update((t) => t && fromRecord(t, record)),
      )
    })
    // EventSource would reconnect by itself; a stream that failed before its end is given up for polling.
    events.addEventListener('error', () => {
      if (!done) stop(false)
    })
    return () => {
      done = true
      events.close()
    }
  }, [job, id, supported])
  return id !== undefined && supported && failed !== id
}
