/** @jsxImportSource preact */
/**
 * @module ui/app/pages/SnapshotsTable
 * The job's committed snapshots, newest first, with download links when downloads are allowed.
 * A split snapshot is downloaded whole by its set ID when the storage can stream the parts.
 */
import { useEffect, useState } from 'preact/hooks'
import { formatBytes } from '../../lib/formatBytes.js'
import { api, ApiError, downloadUrl, type SnapshotView } from '../api.js'
import { RelativeTime } from '../components/RelativeTime.js'

export function SnapshotsTable({ name, canDownload, version }: { name: string; canDownload: boolean; version: number }) {
  const [snapshots, setSnapshots] = useState<SnapshotView[]>()
  const [error, setError] = useState<string>()
  const [reload, setReload] = useState(0)

  useEffect(() => {
    api.backups(name).then(
      (r) => {
        setSnapshots(r.backups)
        setError(undefined)
      },
      (err: unknown) => {
        if (!(err instanceof ApiError && err.status === 401)) setError(err instanceof Error ? err.message : String(err))
      },
    )
  }, [name, version, reload])

  return (
    <section aria-labelledby="snapshots-title">
      <div class="section-head">
        <h2 id="snapshots-title">Snapshots</h2>
        <button class="link-button" onClick={() => setReload((r) => r + 1)}>
          Refresh
        </button>
      </div>
      {error && <p class="alert error">{error}</p>}
      {snapshots && snapshots.length === 0 && <p class="muted">No snapshots yet.</p>}
      {snapshots && snapshots.length > 0 && (
        <table class="snapshots-table responsive">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
              <th scope="col">Storage</th>
              <th scope="col">Split</th>
              {canDownload && <th scope="col">Download</th>}
            </tr>
          </thead>
          <tbody>
            {snapshots.map((s) => (
              <tr key={s.id} data-snapshot={s.name}>
                <th scope="row" data-label="Name" class="snapshot-name">
                  {s.name}
                </th>
                <td data-label="Size" title={`${s.size.toLocaleString()} bytes`}>
                  {formatBytes(s.size)}
                </td>
                <td data-label="Created">
                  <RelativeTime time={s.createdAt} />
                </td>
                <td data-label="Storage">{s.storageType}</td>
                <td data-label="Split">{s.isSplit ? `${s.partsCount} parts` : 'no'}</td>
                {canDownload && (
                  <td data-label="Download">
                    {!s.isSplit || s.fullDownloadSupported ? (
                      <a class="download" href={downloadUrl(name, s.name)} download aria-label={`Download ${s.name}`}>
                        Download
                      </a>
                    ) : (
                      <span class="muted" title="This storage cannot stream the parts as one file">
                        parts only
                      </span>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
