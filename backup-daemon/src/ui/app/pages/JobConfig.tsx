/** @jsxImportSource preact */
/**
 * @module ui/app/pages/JobConfig
 * The job's configuration as the daemon returns it: `{job, config}` with a view that holds no secrets.
 * A daemon with `showConfig` off answers only the name and schedule; the section then says so.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'

export function JobConfig({ name }: { name: string }) {
  const [config, setConfig] = useState<string>()
  const [hidden, setHidden] = useState(false)
  const [error, setError] = useState<string>()
  useEffect(() => {
    api.jobConfig(name).then(
      (c) => {
        // With showConfig off only the name and schedule come back (inside `config`, as the original
        // service answers, or on their own): nothing to show beyond what the page already says.
        const detail: Record<string, unknown> = 'config' in c ? c.config : c
        if (Object.keys(detail).every((key) => key === 'name' || key === 'schedule')) setHidden(true)
        else setConfig(JSON.stringify(detail, null, 2))
      },
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    )
  }, [name])
  return (
    <section aria-labelledby="config-title">
      <details class="card config">
        <summary>
          <h2 id="config-title">Configuration</h2>
        </summary>
        {error && <p class="alert error">{error}</p>}
        {hidden && <p class="muted">This daemon does not show job configurations (server.permissions.showConfig).</p>}
        {config && <pre class="config-json">{config}</pre>}
      </details>
    </section>
  )
}
