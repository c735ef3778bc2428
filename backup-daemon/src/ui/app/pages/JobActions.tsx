/** @jsxImportSource preact */
/**
 * @module ui/app/pages/JobActions
 * Run now and Cancel, with immediate feedback: the button disables at once, and the answer (or a
 * 409/403 Problem in plain words) appears in a live region screen readers announce.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError } from '../api.js'

interface Feedback {
  kind: 'ok' | 'error'
  text: string
}

interface JobActionsProps {
  name: string
  /** `idle` or `running`. */
  status: string
  /** A cancel of the run in flight is in progress. */
  cancelling: boolean
  /** What the action leads to (a run, or a run being stopped), shown at once. */
  onChanged(change: 'running' | 'cancelling'): void
  /** After any answer, success or refusal: the page reads the real status (a 409 means it changed). */
  onSettled(): void
}

export function JobActions({ name, status, cancelling, onChanged, onSettled }: JobActionsProps) {
  const [pending, setPending] = useState<'run' | 'cancel'>()
  const [feedback, setFeedback] = useState<Feedback>()
  const running = status !== 'idle'

  // "Run started at …" and "Cancel requested at …" describe a run in flight: gone once it ended.
  // Refusals stay (they answer the click, not the run).
  const wasRunning = useRef(running)
  useEffect(() => {
    if (wasRunning.current && !running) setFeedback((shown) => (shown?.kind === 'ok' ? undefined : shown))
    wasRunning.current = running
  }, [running])

  const act = async (action: 'run' | 'cancel') => {
    setPending(action)
    setFeedback(undefined)
    try {
      if (action === 'run') {
        const r = await api.run(name)
        setFeedback({ kind: 'ok', text: `Run started at ${new Date(r.startedAt).toLocaleTimeString()}.` })
        onChanged('running')
      } else {
        const r = await api.cancel(name)
        setFeedback({ kind: 'ok', text: `Cancel requested at ${new Date(r.cancelledAt).toLocaleTimeString()}.` })
        onChanged('cancelling')
      }
    } catch (err) {
      setFeedback({ kind: 'error', text: describe(action, err) })
    } finally {
      setPending(undefined)
      onSettled()
    }
  }

  return (
    <div class="actions">
      <button class="primary" onClick={() => void act('run')} disabled={pending !== undefined || running} aria-describedby="action-feedback">
        {pending === 'run' ? 'Starting…' : 'Run now'}
      </button>
      <button class="danger" onClick={() => void act('cancel')} disabled={pending !== undefined || !running || cancelling} aria-describedby="action-feedback">
        {pending === 'cancel' ? 'Cancelling…' : cancelling ? 'Stopping…' : 'Cancel run'}
      </button>
      <p id="action-feedback" class={`feedback ${feedback?.kind ?? ''}`} role="status" aria-live="polite">
        {feedback?.text ?? ''}
      </p>
    </div>
  )
}

/** The API's refusals in plain words (409 and 403 say all there is; other errors keep the Problem's text). */
function describe(action: 'run' | 'cancel', err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err)
  if (err.status === 409 && action === 'run') return 'Not started: this job is already running.'
  if (err.status === 409) return 'Nothing to cancel: this job has no run in progress.'
  if (err.status === 403) return 'Not allowed: manual runs are switched off on this daemon.'
  if (err.status === 404) return 'This job no longer exists.'
  if (err.status === 401) return 'Your session has expired.'
  return `${action === 'run' ? 'Run' : 'Cancel'} failed: ${err.message}`
}
