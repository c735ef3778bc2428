/** @jsxImportSource preact */
/**
 * @module ui/app/pages/DashboardPage
 * Every job at a glance: status (live indicator while running), schedule in words and cron, last
 * result, duration, last and next run, counts, active or paused. Refreshes every 5 s (2 s while a
 * run is in flight). On a phone the table turns into one card per job (CSS).
 */
import { useState } from 'preact/hooks'
import { cronToWords } from '../../lib/cronToWords.js'
import { api, ApiError, type JobView } from '../api.js'
import { RelativeTime } from '../components/RelativeTime.js'
import { RunProgressView } from '../components/RunProgressView.js'
import { ActiveBadge, StatusBadge } from '../components/StatusBadge.js'
import { useInterval } from '../components/useInterval.js'
import { linkClick } from '../router.js'

export function DashboardPage() {
  const [jobs, setJobs] = useState<JobView[]>()
  const [error, setError] = useState<string>()
  const [updatedAt, setUpdatedAt] = useState<Date>()
  const busy = jobs?.some((j) => j.status !== 'idle') ?? false

  useInterval(
    () => {
      api.jobs().then(
        (r) => {
          setJobs(r.jobs)
          setError(undefined)
          setUpdatedAt(new Date())
        },
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 401) return
          setError(err instanceof Error ? err.message : String(err))
        },
      )
    },
    busy ? 2000 : 5000,
  )

  return (
    <main id="main" tabIndex={-1} class="page">
      <div class="page-head">
        <h1>Jobs</h1>
        {updatedAt && (
          <span class="muted small" aria-live="off">
            Updated {updatedAt.toLocaleTimeString()} · refreshes by itself
          </span>
        )}
      </div>
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      {!jobs && !error && <p class="muted">Loading jobs…</p>}
      {jobs && jobs.length === 0 && <p>No jobs are configured.</p>}
      {jobs && jobs.length > 0 && (
        <table class="jobs-table responsive">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Status</th>
              <th scope="col">Schedule</th>
              <th scope="col">Last result</th>
              <th scope="col">Duration</th>
              <th scope="col">Last run</th>
              <th scope="col">Next run</th>
              <th scope="col">Sources / storages</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.name} data-job={job.name}>
                <th scope="row" data-label="Job">
                  <div>
                    <a href={`/jobs/${encodeURIComponent(job.name)}`} onClick={linkClick}>
                      {job.name}
                    </a>{' '}
                    <ActiveBadge active={job.active} />
                  </div>
                </th>
                <td data-label="Status">
                  <div>
                    <StatusBadge status={job.status} cancelling={job.cancelling} />
                    {job.progress && <RunProgressView progress={job.progress} compact />}
                  </div>
                </td>
                <td data-label="Schedule">
                  <div>
                    <span class="schedule-words">{cronToWords(job.schedule)}</span>
                    <code class="cron">{job.schedule}</code>
                  </div>
                </td>
                <td data-label="Last result">
                  <LastResult job={job} />
                </td>
                <td data-label="Duration">{job.lastResult?.duration || <span class="muted">—</span>}</td>
                <td data-label="Last run">
                  <RelativeTime time={job.lastRun} empty="never" />
                </td>
                <td data-label="Next run">{job.active ? <RelativeTime time={job.nextRun} /> : <span class="muted">paused</span>}</td>
                <td data-label="Sources / storages">
                  <span>
                    {job.sourcesCount} / {job.storagesCount}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  )
}

/** A missing `lastResult` means no run has ended yet: never shown as a failure. */
export function LastResult({ job }: { job: Pick<JobView, 'lastResult'> }) {
  const result = job.lastResult
  if (!result) return <span class="muted">no run yet</span>
  if (result.success) return <span class="result ok">✓ success</span>
  return (
    <span class="result failed" title={result.error}>
      ✗ {result.error || 'failed'}
    </span>
  )
}
