/** @jsxImportSource preact */
/**
 * @module ui/app/pages/JobConfig
 * The job's configuration as the daemon returns it (secrets already replaced by "[redacted]").
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.js'

export function JobConfig({ name }: { name: string }) {
  const [config, setConfig] = useState<string>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    api.jobConfig(name).then(
      (c) => setConfig(JSON.stringify(c, null, 2)),
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
        {config && <pre class="config-json">{config}</pre>}
      </details>
    </section>
  )
}
