/** @jsxImportSource preact */
/**
 * @module ui/app/components/RunProgressView
 * A run in flight: the phase it is in (steps), one bar for reading with bytes, rate and ETA (a real
 * percentage when the daemon knows the total, else a moving "working" bar), and a bar per storage.
 * `compact` is the dashboard's one-line version. Bars are `role="progressbar"` with their values, so
 * the numbers are read out too and colour is never the only signal.
 */
import type { RunPhase, RunProgress } from '../../../runs/progress.js'
import { formatBytes } from '../../lib/formatBytes.js'
import { formatMs } from '../../lib/formatMs.js'

export type { RunProgress }

/** The steps shown, in order; `dumping` and `archiving` are one step (reading the sources). */
const STEPS: { key: string; label: string; phases: RunPhase[] }[] = [
  { key: 'preparing', label: 'Preparing', phases: ['preparing', 'hooks'] },
  { key: 'reading', label: 'Reading sources', phases: ['dumping', 'archiving', 'restoring', 'verifying'] },
  { key: 'uploading', label: 'Committing', phases: ['uploading'] },
  { key: 'retention', label: 'Retention', phases: ['retention'] },
  { key: 'finishing', label: 'Finishing', phases: ['finishing'] },
]

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
  const eta = etaSeconds !== undefined ? `about ${formatMs(etaSeconds * 1000)} left` : ''
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

  // `hooks` is the beforeScript, or the afterScript once the snapshot is committed (then it is the last step).
  const afterCommit = progress.phase === 'hooks' && progress.storages.some((s) => s.done)
  const current = afterCommit ? STEPS.length - 1 : STEPS.findIndex((step) => step.phases.includes(progress.phase))
  return (
    <section class="run-progress card" aria-label="Run progress" data-phase={progress.phase}>
      <ol class="phase-steps">
        {STEPS.map((step, index) => (
          <li key={step.key} class={index < current ? 'done' : index === current ? 'current' : 'pending'} aria-current={index === current ? 'step' : undefined}>
            {index < current ? '✓ ' : ''}
            {step.label}
          </li>
        ))}
      </ol>
      <div class="progress-row">
        <div class="progress-label">
          <strong>{PHASE_WORDS[progress.phase]}</strong>
          {progress.currentSource && (
            <span class="muted">
              {' '}
              · {progress.currentSource}
              {progress.currentFile ? `/${progress.currentFile}` : ''}
            </span>
          )}
        </div>
        <Bar label="Reading the sources" percent={percent} text={summary} />
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
