/** @jsxImportSource preact */
/**
 * @module ui/app/components/StatusBadge
 * A job's run status; running and cancelling pulse (the live indicator), with the word always shown
 * so colour is never the only signal.
 */

export function StatusBadge({ status }: { status: string }) {
  const live = status === 'running' || status === 'cancelling'
  return (
    <span class={`badge status-${status}`} data-status={status}>
      {live && <span class="live-dot" aria-hidden="true" />}
      {status}
    </span>
  )
}

export function ActiveBadge({ active }: { active: boolean }) {
  return <span class={`badge ${active ? 'active' : 'paused'}`}>{active ? 'active' : 'paused'}</span>
}
