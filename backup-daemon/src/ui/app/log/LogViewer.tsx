/** @jsxImportSource preact */
/**
 * @module ui/app/log/LogViewer
 * The live log viewer of the job and system pages: stream state, tail length, follow mode, search
 * (Enter / Shift+Enter walk the matches), copy, and the virtualised list of ANSI-coloured lines.
 */
import { useMemo, useState } from 'preact/hooks'
import type { LogSource } from '../api.js'
import { useLogStream, type StreamState } from './useLogStream.js'
import { VirtualLog } from './VirtualLog.js'

const TAIL_CHOICES = [100, 1000, 10_000, 50_000]

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'connecting…',
  loading: 'loading…',
  live: 'live',
  reconnecting: 'reconnecting…',
  offline: 'disconnected',
}

interface LogViewerProps {
  source: LogSource
  label: string
  /** Lines the daemon keeps for this log (`logLimits`); larger tail choices are hidden. */
  maxTail?: number
}

export function LogViewer({ source, label, maxTail }: LogViewerProps) {
  const choices = useMemo(() => {
    const limit = maxTail && maxTail > 0 ? Math.min(maxTail, 50_000) : 50_000
    const list = TAIL_CHOICES.filter((n) => n < limit)
    return [...list, limit]
  }, [maxTail])
  const [tail, setTail] = useState(() => choices.find((n) => n >= 1000) ?? choices[choices.length - 1]!)
  const [follow, setFollow] = useState(true)
  const [query, setQuery] = useState('')
  const [position, setPosition] = useState(0)
  const [jumpToken, setJumpToken] = useState(0)
  const [copied, setCopied] = useState<string>()
  const { buffer, version, state } = useLogStream(source, tail)

  const matchList = useMemo(() => buffer.search(query), [buffer, version, query])
  const matches = useMemo(() => new Set(matchList), [matchList])
  const current = matchList.length ? matchList[Math.min(position, matchList.length - 1)] : undefined

  const go = (step: number) => {
    if (!matchList.length) return
    setFollow(false)
    setPosition((p) => (Math.min(p, matchList.length - 1) + step + matchList.length) % matchList.length)
    setJumpToken((t) => t + 1)
  }

  const copy = async () => {
    const text = buffer.text()
    try {
      await navigator.clipboard.writeText(text)
    } catch {
      // No clipboard permission (plain http on another host): the old way still works.
      const area = document.createElement('textarea')
      area.value = text
      document.body.append(area)
      area.select()
      document.execCommand('copy')
      area.remove()
    }
    setCopied(`Copied ${buffer.length.toLocaleString()} lines`)
    setTimeout(() => setCopied(undefined), 2500)
  }

  return (
    <div class="log-viewer">
      <div class="log-toolbar" role="toolbar" aria-label={`${label} controls`}>
        <span class={`stream-state ${state}`} role="status">
          <span class="live-dot" aria-hidden="true" />
          {STATE_TEXT[state]}
        </span>
        <label class="inline">
          Lines
          <select value={String(tail)} onChange={(e) => setTail(Number((e.currentTarget as HTMLSelectElement).value))}>
            {choices.map((n) => (
              <option key={n} value={String(n)}>
                {n.toLocaleString()}
              </option>
            ))}
          </select>
        </label>
        <button class={follow ? 'toggle on' : 'toggle'} aria-pressed={follow} onClick={() => setFollow(!follow)}>
          Follow
        </button>
        <span class="log-search">
          <input
            type="search"
            placeholder="Search log"
            aria-label={`Search ${label}`}
            value={query}
            onInput={(e) => {
              const value = (e.currentTarget as HTMLInputElement).value
              setQuery(value)
              setPosition(0)
              // Search as you type: show the first match at once.
              if (value) {
                setFollow(false)
                setJumpToken((t) => t + 1)
              }
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                go(e.shiftKey ? -1 : 1)
              } else if (e.key === 'Escape') setQuery('')
            }}
          />
          <button aria-label="Previous match" onClick={() => go(-1)} disabled={!matchList.length}>
            ↑
          </button>
          <button aria-label="Next match" onClick={() => go(1)} disabled={!matchList.length}>
            ↓
          </button>
          {query && (
            <span class="match-count" aria-live="polite">
              {matchList.length ? `${Math.min(position, matchList.length - 1) + 1} / ${matchList.length}` : 'no match'}
            </span>
          )}
        </span>
        <button onClick={() => void copy()} disabled={!buffer.length}>
          Copy
        </button>
        <span class="muted small line-count">{buffer.length.toLocaleString()} lines</span>
        {copied && (
          <span class="small" role="status">
            {copied}
          </span>
        )}
      </div>
      <VirtualLog
        buffer={buffer}
        version={version}
        follow={follow}
        onScrolledAway={() => setFollow(false)}
        label={label}
        matches={matches}
        current={current}
        jumpToken={jumpToken}
      />
    </div>
  )
}
