/** @jsxImportSource preact */
/**
 * @module ui/app/pages/SnapshotsTable
 * The job's committed snapshots, newest first, with download links when downloads are allowed.
 * Downloads go by the snapshot's `id`; a split set is downloaded whole by its `id` when the storage can
 * stream the parts as one file, and each part on its own (`<id>.part-aaa`, ...). Snapshots without the
 * daemon's checksum manifest (e.g. the original service's) say "not checksummed"; ones the listing found
 * incomplete say "damaged" with the reason. A storage that did not answer is named above the table with
 * why and since when; the table lists what the others hold (downloads and restores come from those), and
 * each snapshot names every storage that holds it.
 */
import { useEffect, useState } from 'preact/hooks'
import { formatBytes } from '../../lib/formatBytes.js'
import { api, ApiError, downloadUrl, partName, type Snapshot, type StorageDown } from '../api.js'
import { RelativeTime } from '../components/RelativeTime.js'
import { RestoreDialog } from '../components/RestoreDialog.js'

interface SnapshotsTableProps {
  name: string
  canDownload: boolean
  /** Verify and Restore… buttons (`permissions.allowRestore`). */
  canRestore?: boolean
  version: number
  /** A verify or restore started here ended. */
  onTaskEnded?(): void
}

export function SnapshotsTable({ name, canDownload, canRestore = false, version, onTaskEnded }: SnapshotsTableProps) {
  const [snapshots, setSnapshots] = useState<Snapshot[]>()
  const [down, setDown] = useState<StorageDown[]>([])
  const [error, setError] = useState<string>()
  const [reload, setReload] = useState(0)
  const [task, setTask] = useState<{ snapshot: string; kind: 'verify' | 'restore' }>()

  useEffect(() => {
    api.backups(name).then(
      (r) => {
        setSnapshots(r.backups)
        setDown(r.storagesDown ?? [])
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
      {down.length > 0 && <StoragesDown down={down} />}
      {snapshots && snapshots.length === 0 && <p class="muted">{down.length > 0 ? 'The storages that answered hold no snapshots.' : 'No snapshots yet.'}</p>}
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
              {canRestore && <th scope="col">Restore</th>}
            </tr>
          </thead>
          <tbody>
            {snapshots.map((s) => (
              <tr key={s.id} data-snapshot={s.name} data-id={s.id}>
                <th scope="row" data-label="Name" class="snapshot-name">
                  <div>
                    {s.name}
                    <SnapshotBadges snapshot={s} />
                  </div>
                </th>
                <td data-label="Size" title={`${s.size.toLocaleString()} bytes`}>
                  {formatBytes(s.size)}
                </td>
                <td data-label="Created">
                  <RelativeTime time={s.createdAt} />
                </td>
                <td data-label="Storage" title={s.storage ? `downloaded from ${s.storage} (${s.storageType})` : undefined}>
                  {storagesOf(s)}
                </td>
                <td data-label="Split">{s.isSplit ? `${s.partsCount} parts` : 'no'}</td>
                {canDownload && (
                  <td data-label="Download">
                    <Downloads job={name} snapshot={s} />
                  </td>
                )}
                {canRestore && (
                  <td data-label="Restore" class="task-actions">
                    <button class="link-button" onClick={() => setTask({ snapshot: fileOf(s), kind: 'verify' })} aria-label={`Verify ${s.name}`}>
                      Verify
                    </button>
                    <button class="link-button" onClick={() => setTask({ snapshot: fileOf(s), kind: 'restore' })} aria-label={`Restore ${s.name}`}>
                      Restore…
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {task && <RestoreDialog job={name} snapshot={task.snapshot} kind={task.kind} onClose={() => setTask(undefined)} onTaskEnded={onTaskEnded} />}
    </section>
  )
}

/** Every storage holding `s`, the one it is downloaded from first (with its type); a daemon without names shows the type. */
function storagesOf(s: Snapshot): string {
  if (!s.storage) return s.storageType
  const others = (s.storages ?? []).filter((name) => name !== s.storage)
  return [`${s.storage} (${s.storageType})`, ...others].join(', ')
}

/** The storages that did not answer: what the table lists is what the others hold. */
function StoragesDown({ down }: { down: StorageDown[] }) {
  return (
    <div class="alert warn" role="status" data-testid="storages-down">
      <p>
        {down.length === 1 ? 'A storage' : `${down.length} storages`} did not answer: listed below is what the others hold, and downloads and restores use
        those.
      </p>
      <ul>
        {down.map((d) => (
          <li key={d.storage} data-storage={d.storage}>
            <strong>{d.storage}</strong>: {d.error} (down since <RelativeTime time={d.since} />)
          </li>
        ))}
      </ul>
    </div>
  )
}

function SnapshotBadges({ snapshot }: { snapshot: Snapshot }) {
  return (
    <>
      {snapshot.damaged && (
        <span class="badge damaged" title={snapshot.damageReason}>
          damaged{snapshot.damageReason ? `: ${snapshot.damageReason}` : ''}
        </span>
      )}
      {snapshot.checksummed === false && (
        <span class="badge unchecked" title="No checksum manifest: the daemon cannot verify this snapshot's bytes">
          not checksummed
        </span>
      )}
    </>
  )
}

/**
 * The `{filename}` that downloads `s`: its `id` (= `name` on this daemon and the original). An `id` that
 * is no file name (an engine listing `<storage>/<name>`) would be refused with 400, so `name` stands in.
 */
const fileOf = (s: Snapshot): string => (/[/\\]/.test(s.id) ? s.name : s.id)

function Downloads({ job, snapshot: s }: { job: string; snapshot: Snapshot }) {
  const id = fileOf(s)
  const whole =
    !s.isSplit || s.fullDownloadSupported ? (
      <a class="download" href={downloadUrl(job, id)} download aria-label={`Download ${s.name}`}>
        Download
      </a>
    ) : (
      <span class="muted" title="This storage cannot stream the parts as one file">
        parts only
      </span>
    )
  if (!s.isSplit || s.partsCount < 1) return whole
  return (
    <div class="downloads">
      {whole}
      <details class="parts">
        <summary>{s.partsCount} parts</summary>
        <ul>
          {Array.from({ length: s.partsCount }, (_, i) => partName(id, i)).map((part, i) => (
            <li key={part}>
              <a class="download-part" href={downloadUrl(job, part)} download aria-label={`Download part ${i + 1} of ${s.name}`} data-part={part}>
                Part {i + 1}
              </a>
            </li>
          ))}
        </ul>
      </details>
    </div>
  )
}
