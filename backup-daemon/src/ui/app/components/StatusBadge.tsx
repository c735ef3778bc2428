/** @jsxImportSource preact */
/**
 * @module ui/app/components/StatusBadge
 * A job's run status (`idle` or `running`); a running job pulses (the live indicator), and one whose
 * cancel is in progress (`cancelling: true`) says "stopping…". The word is always shown so colour is
 * never the only signal.
 */

export function StatusBadge({ status, cancelling = false }: { status: string; cancelling?: boolean }) {
  const live = status === 'running'
  const stopping = live && cancelling
  return (
    <span class={`badge status-${stopping ? 'cancelling' : status}`} data-status={status} data-cancelling={stopping ? 'true' : undefined}>
      {live && <span class="live-dot" aria-hidden="true" />}
      {stopping ? 'stopping…' : status}
    </span>
  )
}

export function ActiveBadge({ active }: { active: boolean }) {
  return <span class={`badge ${active ? 'active' : 'paused'}`}>{active ? 'active' : 'paused'}</span>
}
