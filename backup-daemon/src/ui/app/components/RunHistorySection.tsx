/** @jsxImportSource preact */
/**
 * @module ui/app/components/RunHistorySection
 * The job page's "Run history": the chart of size and duration over time and the table of recent
 * runs, loaded again whenever `version` changes (a run ended).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../api.js'
import { HistoryChart } from './HistoryChart.js'
import { HistoryTable, type RunRecord } from './HistoryTable.js'

export function RunHistorySection({ name, version }: { name: string; version: number }) {
  const [runs, setRuns] = useState<RunRecord[]>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    api.history(name).then(
      (r) => {
        setRuns(r.runs)
        setError(undefined)
      },
      (err: unknown) => {
        if (!(err instanceof ApiError && err.status === 401)) setError(err instanceof Error ? err.message : String(err))
      },
    )
  }, [name, version])
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Run history</h2>
      {error && <p class="alert error">{error}</p>}
      {!runs && !error && <p class="muted">Loading runs…</p>}
      {runs && <HistoryChart runs={runs} />}
      {runs && <HistoryTable runs={runs} />}
    </section>
  )
}
