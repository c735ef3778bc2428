/**
 * @module engine/jobViews
 * The jobs as the API shows them (`listJobs`, `getJob`, `runInfo`), built from the saved state, the run
 * in flight and croner's next fire time (cached until it passes). `listJobs` hands out the very same
 * frozen array while no job's view changed: `GET /jobs` is polled, and the server serialises a list only
 * when its identity changes (`server/jobListBody.ts`).
 */
import type { JobState, StateStore } from './StateStore.js'
import type { JobRuntime, ShownState } from './jobRuntime.js'
import type { JobView, RunInfo } from './types.js'

export interface JobViews {
  listJobs(): JobView[]
  getJob(job: JobRuntime): JobView
  runInfo(job: JobRuntime): RunInfo
}

const shownState = ({ lastRun, lastResult }: JobState): ShownState => [lastRun, lastResult.success, lastResult.duration, lastResult.error]
const sameState = (a: ShownState, { lastRun, lastResult }: JobState): boolean =>
  a[0] === lastRun && a[1] === lastResult.success && a[2] === lastResult.duration && a[3] === lastResult.error

export function jobViews(jobs: Map<string, JobRuntime>, state: StateStore): JobViews {
  const nextRun = (job: JobRuntime, now = Date.now()): string => {
    if (!job.cron) return ''
    if (!job.nextRun || job.nextRun.at <= now) {
      const next = job.cron.nextRun()
      job.nextRun = { at: next ? next.getTime() : Infinity, iso: next?.toISOString() ?? '' }
    }
    return job.nextRun.iso
  }
  /** `refresh: false` when the caller already refreshed the state for a batch of jobs. */
  const view = (job: JobRuntime, refresh = true): JobView => {
    if (refresh) state.refresh()
    const saved = state.cached(job.config.name)
    const { success, duration, error } = saved.lastResult
    const next = nextRun(job)
    // Empty optional fields are left out (the original's shape): no lastResult before a run has ended.
    const ended = success || Boolean(duration) || Boolean(error)
    return {
      name: job.config.name,
      active: job.config.active,
      schedule: job.config.schedule,
      sourcesCount: job.config.sources.length,
      storagesCount: job.config.storages.length,
      status: job.status === 'idle' ? 'idle' : 'running',
      ...(job.status === 'cancelling' ? { cancelling: true as const } : {}),
      ...(ended ? { lastResult: { success, ...(duration ? { duration } : {}), ...(error ? { error } : {}) } } : {}),
      ...(saved.lastRun ? { lastRun: saved.lastRun } : {}),
      ...(next ? { nextRun: next } : {}),
      ...(job.tracker ? { progress: job.tracker.snapshot() } : {}),
    }
  }

  /**
   * The job's view, the very same frozen object as last time while its inputs are unchanged. A running
   * job (live progress) gets a new view on every call. The saved state is compared by value, since
   * `StateStore` hands out a new empty entry on every call for a job that never ran.
   */
  const shownView = (job: JobRuntime, now: number): JobView => {
    if (job.tracker) {
      job.shown = undefined
      return view(job, false)
    }
    const saved = state.cached(job.config.name)
    const next = nextRun(job, now)
    const shown = job.shown
    if (shown && shown.status === job.status && shown.next === next && sameState(shown.saved, saved)) return shown.view
    const fresh = view(job, false)
    if (fresh.lastResult) Object.freeze(fresh.lastResult)
    job.shown = { view: Object.freeze(fresh), status: job.status, saved: shownState(saved), next }
    return fresh
  }
  let listed = Object.freeze([] as JobView[]) as JobView[]

  return {
    listJobs: () => {
      state.refresh()
      // The same frozen array while no job's view changed (no new array), a new one otherwise.
      const now = Date.now()
      let i = 0
      let views: JobView[] | undefined = listed.length === jobs.size ? undefined : []
      for (const job of jobs.values()) {
        const shown = shownView(job, now)
        if (!views && shown !== listed[i]) views = listed.slice(0, i)
        views?.push(shown)
        i++
      }
      if (views) listed = Object.freeze(views) as JobView[]
      return listed
    },
    getJob: (job) => view(job),
    runInfo(job) {
      const info = state.get(job.config.name).run
      return job.status === 'idle' ? info : { ...info, status: job.status }
    },
  }
}
