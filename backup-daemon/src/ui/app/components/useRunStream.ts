/**
 * @module ui/app/components/useRunStream
 * Follows a job's runs live over `GET /jobs/{name}/progress` (server-sent events, cookie sent along):
 * the newest progress snapshot while a run is in flight (undefined otherwise), and a counter that
 * grows each time a run ends (a render dependency for the history and the snapshots). EventSource
 * reconnects by itself; the current progress is sent first on every connection.
 */
import { useEffect, useState } from 'preact/hooks'
import type { RunProgress } from '../../../runs/progress.js'
import { API_BASE } from '../api.js'

export interface RunStream {
  progress?: RunProgress
  /** Runs ended since the page opened. */
  ended: number
}

export function useRunStream(name: string): RunStream {
  const [state, setState] = useState<RunStream>({ ended: 0 })
  useEffect(() => {
    setState({ ended: 0 })
    const events = new EventSource(`${API_BASE}/jobs/${encodeURIComponent(name)}/progress`)
    events.addEventListener('progress', (event) => {
      const progress = JSON.parse((event as MessageEvent<string>).data) as RunProgress
      setState((s) => ({ ...s, progress }))
    })
    events.addEventListener('end', () => setState((s) => ({ progress: undefined, ended: s.ended + 1 })))
    return () => events.close()
  }, [name])
  return state
}
