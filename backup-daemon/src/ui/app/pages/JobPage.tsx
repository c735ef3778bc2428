/** @jsxImportSource preact */
/**
 * @module ui/app/pages/JobPage
 * One job: status and actions (run now, cancel), snapshots, live log, and the redacted config when
 * `showConfig` is on. Controls the permissions forbid are not rendered at all.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { cronToWords } from '../../lib/cronToWords.js'
import { api, ApiError, jobLogSource, type JobView, type Settings } from '../api.js'
import { DrillStatus } from '../components/DrillStatus.js'
import { RelativeTime } from '../components/RelativeTime.js'
import { RunHistorySection } from '../components/RunHistorySection.js'
import { RunProgressView } from '../components/RunProgressView.js'
import { useRunStream } from '../components/useRunStream.js'
import { ActiveBadge, StatusBadge } from '../components/StatusBadge.js'
import { useInterval } from '../components/useInterval.js'
import { LogViewer } from '../log/LogViewer.js'
import { linkClick } from '../router.js'
import { LastResult } from './DashboardPage.js'
import { JobActions } from './JobActions.js'
import { JobConfig } from './JobConfig.js'
import { SnapshotsTable } from './SnapshotsTable.js'

type JobState = Omit<JobView, 'schedule' | 'sourcesCount' | 'storagesCount'> & Partial<JobView>

export function JobPage({ name, settings }: { name: string; settings: Settings }) {
  const [job, setJob] = useState<JobState>()
  const [details, setDetails] = useState<JobView>()
  const [error, setError] = useState<string>()
  const [notFound, setNotFound] = useState(false)
  const [snapshotsVersion, setSnapshotsVersion] = useState(0)
  // Verify and restore tasks that ended on this page: the run history lists them too.
  const [tasksEnded, setTasksEnded] = useState(0)
  const lastStatus = useRef<string | undefined>(undefined)
  const live = useRunStream(name)
  // A run ended: list the snapshots again and refresh the status at once.
  useEffect(() => {
    if (live.ended === 0) return
    setSnapshotsVersion((v) => v + 1)
    refresh()
  }, [live.ended])

  useEffect(() => {
    setJob(undefined)
    setNotFound(false)
    api.jobs().then(
      (r) => setDetails(r.jobs.find((j) => j.name === name)),
      () => {},
    )
  }, [name])

  const refresh = () => {
    api.jobStatus(name).then(
      (status) => {
        // A run just ended: its snapshot is committed now, so list again.
        if (lastStatus.current && lastStatus.current !== 'idle' && status.status === 'idle') setSnapshotsVersion((v) => v + 1)
        lastStatus.current = status.status
        setJob(status)
        setError(undefined)
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 404) setNotFound(true)
        else if (!(err instanceof ApiError && err.status === 401)) setError(err instanceof Error ? err.message : String(err))
      },
    )
  }
  useInterval(refresh, job && job.status !== 'idle' ? 1500 : 5000)

  // The stream's snapshot is the freshest; the polled status covers a page opened mid-run before the first event.
  const progress = live.progress ?? (job?.status !== 'idle' ? job?.progress : undefined)

  if (notFound) {
    return (
      <main id="main" tabIndex={-1} class="page narrow">
        <h1>No job named “{name}”</h1>
        <p>
          <a href="/" onClick={linkClick}>
            Back to the jobs
          </a>
        </p>
      </main>
    )
  }

  return (
    <main id="main" tabIndex={-1} class="page">
      <nav class="breadcrumb" aria-label="Breadcrumb">
        <a href="/" onClick={linkClick}>
          Jobs
        </a>{' '}
        / <span aria-current="page">{name}</span>
      </nav>
      <div class="page-head">
        <h1>{name}</h1>
        {job && <StatusBadge status={job.status} cancelling={job.cancelling} />}
        {job && <ActiveBadge active={job.active} />}
      </div>
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      {job && (
        <section class="card" aria-label="Status">
          <dl class="facts">
            {details && (
              <div>
                <dt>Schedule</dt>
                <dd>
                  {cronToWords(details.schedule)} <code class="cron">{details.schedule}</code>
                </dd>
              </div>
            )}
            <div>
              <dt>Last result</dt>
              <dd>
                <LastResult job={job} />
              </dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>{job.lastResult?.duration || '—'}</dd>
            </div>
            <div>
              <dt>Last run</dt>
              <dd>
                <RelativeTime time={job.lastRun} empty="never" />
              </dd>
            </div>
            <div>
              <dt>Next run</dt>
              <dd>{job.active ? <RelativeTime time={job.nextRun} /> : 'paused'}</dd>
            </div>
            {details && (
              <div>
                <dt>Sources / storages</dt>
                <dd>
                  {details.sourcesCount} / {details.storagesCount}
                </dd>
              </div>
            )}
            <div class="fact-wide">
              <dt>Restore drill</dt>
              <dd>
                <DrillStatus
                  name={name}
                  canDrill={settings.permissions.allowRestore ?? false}
                  version={live.ended + tasksEnded}
                  onEnded={() => setTasksEnded((n) => n + 1)}
                />
              </dd>
            </div>
          </dl>
          {settings.permissions.allowManualRun && (
            <JobActions
              name={name}
              status={job.status}
              cancelling={job.cancelling ?? false}
              onChanged={(change) => {
                lastStatus.current = 'running'
                setJob({ ...job, status: 'running', ...(change === 'cancelling' ? { cancelling: true as const } : {}) })
              }}
              onSettled={refresh}
            />
          )}
        </section>
      )}

      {progress && <RunProgressView progress={progress} />}

      {/* Listed once the first status is in: a run that ended before it is in the list, and one still running
          then is caught ending (stream or poll). Listed at once, the list could miss a snapshot committed
          between it and the first status (idle already, so no end seen). */}
      {job && (
        <SnapshotsTable
          name={name}
          canDownload={settings.permissions.allowBackupDownload}
          canRestore={settings.permissions.allowRestore ?? false}
          version={snapshotsVersion}
          onTaskEnded={() => setTasksEnded((n) => n + 1)}
        />
      )}

      <section aria-labelledby="log-title">
        <h2 id="log-title">Log</h2>
        {settings.logs.perJob ? (
          <LogViewer source={jobLogSource(name)} label={`Log of ${name}`} maxTail={settings.logLimits.jobLogs} />
        ) : (
          <p class="alert info">Per-job logs are switched off in this daemon's configuration (logs.perJob).</p>
        )}
      </section>

      <RunHistorySection name={name} version={live.ended + tasksEnded} />

      {settings.permissions.showConfig && <JobConfig name={name} />}
    </main>
  )
}
