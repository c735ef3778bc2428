/** @jsxImportSource preact */
/**
 * @module ui/app/components/RestoreDialog
 * Verify or restore one snapshot, as a modal dialog: first the confirmation, which says what will be
 * read and what will be written where (a folder on the daemon's host, or a database of the daemon's
 * `restore.databases`, whether existing files or tables are replaced, and whether the job's videos are then
 * uploaded back into their library); then the task's progress with a Cancel button, followed live on the task stream (`useTaskStream`), or polled from
 * `GET /jobs/{name}/tasks/current` when the stream fails; then its result (the summary, or why it failed
 * or was cancelled). The daemon checks every target: its refusals are shown as it words them. What may be
 * chosen comes from the daemon first (`GET …/restore-options`): the restore roots are named up front and
 * the folder's example is inside the first one, a database source and its target are picked from the
 * job's database sources and the `restore.databases` of their kind, and the library upload is offered only
 * for a job with a video library source.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, type RestoreOptions, type RestoreTarget, type TaskView } from '../api.js'
import { RunProgressView } from './RunProgressView.js'
import { useInterval } from './useInterval.js'
import { useTaskStream } from './useTaskStream.js'

export interface RestoreDialogProps {
  job: string
  /** The snapshot's `{filename}` (its listed id/name). */
  snapshot: string
  kind: 'verify' | 'restore'
  onClose(): void
  /** The task ended (success, failure or cancel): the page shows it in the run history at once. */
  onTaskEnded?(): void
}

const ended = (task: TaskView) => task.status !== 'running' && task.status !== 'cancelling'

export function RestoreDialog({ job, snapshot, kind, onClose, onTaskEnded }: RestoreDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [targetKind, setTargetKind] = useState<'files' | 'database'>('files')
  const [path, setPath] = useState('')
  const [source, setSource] = useState('')
  const [database, setDatabase] = useState('')
  const [overwrite, setOverwrite] = useState(false)
  const [intoLibrary, setIntoLibrary] = useState(false)
  const [task, setTask] = useState<TaskView>()
  const [error, setError] = useState<string>()
  const [pending, setPending] = useState(false)
  const [options, setOptions] = useState<RestoreOptions>()

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
  }, [])

  useEffect(() => {
    if (kind !== 'restore') return
    api.restoreOptions(job).then(
      (found) => {
        setOptions(found)
        // The first choice made, so a job with one database source and one target restores in one click.
        const first = found.databaseSources.find((s) => s.targets.length > 0)
        if (first) {
          setSource(first.name)
          setDatabase(first.targets[0]!)
        }
      },
      // An older daemon without the route: free text, as before.
      () => {},
    )
  }, [job, kind])
  const targetsOf = (name: string) => options?.databaseSources.find((s) => s.name === name)?.targets ?? []
  const example = options?.roots[0] ? `${options.roots[0].replace(/\/+$/, '')}/${job}` : '/srv/restore/site'

  // A refusal is about the target as it was: editing the target makes it stale, so it goes.
  useEffect(() => setError(undefined), [targetKind, path, source, database, overwrite, intoLibrary])

  const taskEnded = task !== undefined && ended(task)
  useEffect(() => {
    if (taskEnded) onTaskEnded?.()
  }, [taskEnded])

  // While the task runs: its progress and, at the end, its result; from the stream, else polled.
  const live = useTaskStream(job, task, setTask)
  useInterval(() => {
    if (!task || ended(task) || live) return
    api.currentTask(job).then(
      (r) => r.task && r.task.id === task.id && setTask(r.task),
      () => {},
    )
  }, 500)

  const target = (): RestoreTarget | undefined => {
    if (targetKind === 'files') return path.trim() ? { kind: 'files', path: path.trim(), overwrite, ...(intoLibrary && { intoLibrary }) } : undefined
    return source.trim() && database.trim() ? { kind: 'database', source: source.trim(), database: database.trim(), overwrite } : undefined
  }

  const start = async () => {
    setPending(true)
    setError(undefined)
    try {
      const chosen = target()
      const answer = kind === 'verify' ? await api.verify(job, snapshot) : await api.restore(job, snapshot, chosen!)
      setTask(answer.task)
    } catch (err) {
      setError(describe(err))
    } finally {
      setPending(false)
    }
  }

  const cancel = async () => {
    try {
      setTask((await api.cancelTask(job)).task)
    } catch (err) {
      setError(describe(err))
    }
  }

  const close = () => {
    dialog.current?.close()
    onClose()
  }

  const title = kind === 'verify' ? `Verify ${snapshot}` : `Restore ${snapshot}`
  return (
    <dialog ref={dialog} class="task-dialog" aria-labelledby="task-dialog-title" onCancel={(e) => (task && !ended(task) ? e.preventDefault() : onClose())}>
      <h2 id="task-dialog-title">{title}</h2>
      {!task && kind === 'verify' && (
        <p>
          Reads every part of <strong>{snapshot}</strong> from each storage that holds it and checks it against the snapshot's checksums (a snapshot without
          them is decrypted and read to its end). Nothing is written.
        </p>
      )}
      {!task && kind === 'restore' && (
        <form
          class="task-form"
          onSubmit={(e) => {
            e.preventDefault()
            void start()
          }}
        >
          <fieldset>
            <legend>Restore into</legend>
            <label>
              <input type="radio" name="target-kind" checked={targetKind === 'files'} onChange={() => setTargetKind('files')} /> a folder on the daemon's host
            </label>
            <label>
              <input type="radio" name="target-kind" checked={targetKind === 'database'} onChange={() => setTargetKind('database')} /> a database
            </label>
          </fieldset>
          {targetKind === 'files' ? (
            <>
              <label class="field">
                Folder (absolute, inside a restore root of the daemon's configuration)
                <input type="text" name="path" value={path} placeholder={example} onInput={(e) => setPath(e.currentTarget.value)} />
              </label>
              {options && (
                <p class="muted" data-testid="restore-roots">
                  {options.roots.length
                    ? `Allowed: inside ${options.roots.join(', ')}`
                    : 'No folder can be restored into: the configuration names no restore roots (restore.roots).'}
                </p>
              )}
            </>
          ) : options ? (
            options.databaseSources.length === 0 ? (
              <p class="muted" data-testid="restore-databases">
                This job has no database source.
              </p>
            ) : (
              <>
                <label class="field">
                  Database source of the job
                  <select
                    name="source"
                    value={source}
                    onChange={(e) => {
                      setSource(e.currentTarget.value)
                      setDatabase(targetsOf(e.currentTarget.value)[0] ?? '')
                    }}
                  >
                    {options.databaseSources.map((s) => (
                      <option key={s.name} value={s.name}>
                        {s.name} ({s.type})
                      </option>
                    ))}
                  </select>
                </label>
                {targetsOf(source).length ? (
                  <label class="field">
                    Target database (restore.databases)
                    <select name="database" value={database} onChange={(e) => setDatabase(e.currentTarget.value)}>
                      {targetsOf(source).map((name) => (
                        <option key={name} value={name}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </label>
                ) : (
                  <p class="muted" data-testid="restore-databases">
                    No database of this kind is configured to restore into (restore.databases).
                  </p>
                )}
              </>
            )
          ) : (
            <>
              <label class="field">
                Database source of the job
                <input type="text" name="source" value={source} placeholder="pg" onInput={(e) => setSource(e.currentTarget.value)} />
              </label>
              <label class="field">
                Target database (a name under restore.databases)
                <input type="text" name="database" value={database} placeholder="staging" onInput={(e) => setDatabase(e.currentTarget.value)} />
              </label>
            </>
          )}
          <label>
            <input type="checkbox" name="overwrite" checked={overwrite} onChange={(e) => setOverwrite(e.currentTarget.checked)} />{' '}
            {targetKind === 'files' ? 'Replace files that already exist' : 'Drop and recreate objects that already exist'}
          </label>
          {targetKind === 'files' && (!options || options.librarySources.length > 0) && (
            <label>
              <input type="checkbox" name="into-library" checked={intoLibrary} onChange={(e) => setIntoLibrary(e.currentTarget.checked)} /> Then upload the
              job's videos back into their library
            </label>
          )}
          <p class="alert info" data-testid="restore-plan">
            {describePlan(snapshot, target(), targetKind)}
          </p>
        </form>
      )}
      {task && (
        <div
          class="task-state"
          data-task-status={task.status}
          data-progress-from={ended(task) ? undefined : live ? 'stream' : 'polling'}
          role="status"
          aria-live="polite"
        >
          {task.target && (
            <p>
              Target: <code>{task.target}</code>
            </p>
          )}
          {task.progress && !ended(task) && <RunProgressView progress={task.progress} />}
          {task.status === 'running' && <p>{kind === 'verify' ? 'Verifying…' : 'Restoring…'}</p>}
          {task.status === 'cancelling' && <p>Cancelling…</p>}
          {task.status === 'success' && <p class="alert info task-result">Done: {task.summary}</p>}
          {task.status === 'failed' && <p class="alert error task-result">Failed: {task.error}</p>}
          {task.status === 'cancelled' && <p class="alert error task-result">Cancelled{kind === 'restore' ? ': the target was left as it was' : ''}.</p>}
        </div>
      )}
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        {!task && (
          <button class="primary" onClick={() => void start()} disabled={pending || (kind === 'restore' && !target())}>
            {pending ? 'Starting…' : kind === 'verify' ? 'Verify' : 'Restore'}
          </button>
        )}
        {task && !ended(task) && (
          <button class="danger" onClick={() => void cancel()} disabled={task.status === 'cancelling'}>
            Cancel {kind}
          </button>
        )}
        <button onClick={close} disabled={task !== undefined && !ended(task)}>
          Close
        </button>
      </div>
    </dialog>
  )
}

/** What the restore will write where, in words, before it is confirmed. */
function describePlan(snapshot: string, target: RestoreTarget | undefined, kind: 'files' | 'database'): string {
  if (!target) return kind === 'files' ? 'Name the folder to restore into.' : 'Name the source and the target database.'
  if (target.kind === 'files') {
    return (
      `The files of ${snapshot} will be written into ${target.path} on the daemon's host, one folder per source. ` +
      (target.overwrite ? 'Files that already exist there are replaced. ' : 'If a file already exists there, nothing is restored. ') +
      'The snapshot is verified first; a failed or cancelled restore leaves the folder as it was.' +
      (target.intoLibrary
        ? " Then each video of the job's video library sources is uploaded from that folder into its library as a new video; " +
          'the old → new ids are written to guid-map.json in the folder, for the CMS to point its documents at the new videos.'
        : '')
    )
  }
  return (
    `The dump of source "${target.source}" in ${snapshot} will be restored into the database configured as "${target.database}". ` +
    (target.overwrite ? 'Existing tables and other objects are dropped and recreated.' : 'If the objects already exist, the restore fails and changes nothing.')
  )
}

function describe(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err)
  if (err.status === 403) return 'Not allowed: restore and verify are switched off on this daemon.'
  if (err.status === 401) return 'Your session has expired.'
  return `Refused: ${err.message}`
}
