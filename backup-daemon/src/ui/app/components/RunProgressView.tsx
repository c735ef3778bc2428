/** @jsxImportSource preact */
/**
 * @module ui/app/components/RunProgressView
 * A run or task in flight: the phase it is in (the steps of its kind: a backup's, a restore's, a verify's,
 * a drill's), one bar for reading with bytes, rate and ETA (a real percentage when the daemon knows the
 * total, else a moving "working" bar), and a bar per storage a backup writes.
 * `compact` is the dashboard's one-line version. Bars are `role="progressbar"` with their values, so
 * the numbers are read out too and colour is never the only signal.
 */
import type { RunPhase, RunProgress } from '../../../runs/progress.js'
import { formatBytes } from '../../lib/formatBytes.js'
import { formatMs } from '../../lib/formatMs.js'

export type { RunProgress }

type Step = { key: string; label: string; phases: RunPhase[] }

/** The steps shown per kind, in order; a backup's `dumping` and `archiving` are one step (reading the sources). */
const STEPS: Record<RunProgress['kind'], Step[]> = {
  backup: [
    { key: 'preparing', label: 'Preparing', phases: ['preparing', 'hooks'] },
    { key: 'reading', label: 'Reading sources', phases: ['dumping', 'archiving', 'restoring', 'verifying'] },
    { key: 'uploading', label: 'Committing', phases: ['uploading'] },
    { key: 'retention', label: 'Retention', phases: ['retention'] },
    { key: 'finishing', label: 'Finishing', phases: ['finishing'] },
  ],
  // A restore into a folder checks as it reads (no verifying step of its own then); an upload into the library is part of restoring.
  restore: [
    { key: 'preparing', label: 'Preparing', phases: ['preparing'] },
    { key: 'verifying', label: 'Verifying', phases: ['verifying'] },
    { key: 'restoring', label: 'Restoring', phases: ['restoring', 'uploading'] },
    { key: 'finishing', label: 'Finishing', phases: ['finishing'] },
  ],
  verify: [
    { key: 'preparing', label: 'Preparing', phases: ['preparing'] },
    { key: 'verifying', label: 'Verifying', phases: ['verifying'] },
    { key: 'finishing', label: 'Finishing', phases: ['finishing'] },
  ],
  drill: [
    { key: 'preparing', label: 'Preparing', phases: ['preparing'] },
    { key: 'verifying', label: 'Verifying', phases: ['verifying'] },
    { key: 'restoring', label: 'Restoring and comparing', phases: ['restoring'] },
    { key: 'finishing', label: 'Finishing', phases: ['finishing'] },
  ],
}

const PHASE_WORDS: Record<RunPhase, string> = {
  preparing: 'preparing',
  hooks: 'running a hook script',
  dumping: 'dumping',
  archiving: 'archiving',
  uploading: 'committing to the storages',
  retention: 'applying retention',
  verifying: 'verifying',
  restoring: 'restoring',
  finishing: 'finishing',
}

function Bar({ label, percent, text }: { label: string; percent?: number; text: string }) {
  const known = percent !== undefined
  return (
    <div
      class={`progress-bar${known ? '' : ' indeterminate'}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={known ? percent : undefined}
      aria-valuetext={text}
      data-percent={known ? String(percent) : undefined}
    >
      <div class="progress-fill" style={known ? { width: `${percent}%` } : undefined} />
    </div>
  )
}

export function RunProgressView({ progress, compact = false }: { progress: RunProgress; compact?: boolean }) {
  const { percent, totalBytes, bytesRead, bytesPerSecond, etaSeconds } = progress
  const rate = bytesPerSecond > 0 ? `${formatBytes(bytesPerSecond)}/s` : ''
  const amount = totalBytes !== undefined ? `${formatBytes(bytesRead)} of ~${formatBytes(totalBytes)}` : `${formatBytes(bytesRead)} read`
  const eta = typeof etaSeconds === 'number' ? `about ${formatMs(etaSeconds * 1000)} left` : ''
  const summary = [percent !== undefined ? `${percent.toFixed(percent < 10 ? 1 : 0)}%` : '', amount, rate, eta].filter(Boolean).join(' · ')

  if (compact) {
    return (
      <div class="run-progress compact" data-phase={progress.phase}>
        <Bar label="Run progress" percent={percent} text={summary} />
        <span class="small muted progress-text">
          {PHASE_WORDS[progress.phase]} · {summary}
        </span>
      </div>
    )
  }

  const steps = STEPS[progress.kind] ?? STEPS.backup
  // `hooks` is the beforeScript, or the afterScript once the snapshot is committed (then it is the last step).
  const afterCommit = progress.phase === 'hooks' && progress.storages.some((s) => s.done)
  const current = afterCommit ? steps.length - 1 : steps.findIndex((step) => step.phases.includes(progress.phase))
  const words = progress.kind !== 'backup' && progress.phase === 'uploading' ? 'uploading into the video library' : PHASE_WORDS[progress.phase]
  return (
    <section class="run-progress card" aria-label="Run progress" data-phase={progress.phase} data-kind={progress.kind}>
      <ol class="phase-steps">
        {steps.map((step, index) => (
          <li key={step.key} class={index < current ? 'done' : index === current ? 'current' : 'pending'} aria-current={index === current ? 'step' : undefined}>
            {index < current ? '✓ ' : ''}
            {step.label}
          </li>
        ))}
      </ol>
      <div class="progress-row">
        <div class="progress-label">
          <strong>{words}</strong>
          {progress.currentSource && (
            <span class="muted">
              {' '}
              · {progress.currentSource}
              {progress.currentFile ? `/${progress.currentFile}` : ''}
            </span>
          )}
        </div>
        <Bar label={progress.kind === 'backup' ? 'Reading the sources' : 'Reading the snapshot'} percent={percent} text={summary} />
        <div class="small progress-text">
          {summary} · {progress.filesRead} file(s)
        </div>
      </div>
      {progress.storages.map((storage) => (
        <div class="progress-row storage" key={storage.storage} data-storage={storage.storage}>
          <div class="progress-label">
            Storage <strong>{storage.storage}</strong>
            {storage.done ? <span class="storage-done"> ✓ committed</span> : null}
          </div>
          <Bar
            label={`Writing to ${storage.storage}`}
            // The archive's final size is unknown while it is written: a moving bar, not a guessed share.
            percent={storage.done ? 100 : storage.bytesWritten === 0 ? 0 : undefined}
            text={`${formatBytes(storage.bytesWritten)} written${storage.done ? ', committed' : ''}`}
          />
          <div class="small progress-text">{formatBytes(storage.bytesWritten)} written</div>
        </div>
      ))}
    </section>
  )
}
