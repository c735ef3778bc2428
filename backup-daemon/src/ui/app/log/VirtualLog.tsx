/** @jsxImportSource preact */
/**
 * @module ui/app/log/VirtualLog
 * A scrolling list that renders only the rows in view (plus a margin): every row has the same
 * height, so row `i` sits at `i * ROW_HEIGHT` and 50,000 lines cost as much as 60. Focusable, so
 * arrows, Page Up/Down, Home and End scroll it from the keyboard.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ansiToHtml } from '../../lib/ansiToHtml.js'
import type { LogBuffer } from './LogBuffer.js'

/** Must match `.log-line { height }` in styles.css. */
export const ROW_HEIGHT = 20
const OVERSCAN = 15

interface VirtualLogProps {
  buffer: LogBuffer
  version: number
  follow: boolean
  onScrolledAway(): void
  label: string
  matches: Set<number>
  current: number | undefined
  /** Changes whenever the view must bring `current` into view. */
  jumpToken: number
}

export function VirtualLog({ buffer, version, follow, onScrolledAway, label, matches, current, jumpToken }: VirtualLogProps) {
  const box = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [viewHeight, setViewHeight] = useState(480)
  const frame = useRef(0)

  useLayoutEffect(() => {
    const el = box.current!
    setViewHeight(el.clientHeight)
    const observer = new ResizeObserver(() => setViewHeight(el.clientHeight))
    observer.observe(el)
    return () => observer.disconnect()
  }, [])

  useLayoutEffect(() => {
    const el = box.current
    if (!follow || !el) return
    el.scrollTop = el.scrollHeight
    setScrollTop(el.scrollTop)
  }, [version, follow])

  useLayoutEffect(() => {
    const el = box.current
    if (!el || current === undefined || jumpToken === 0) return
    el.scrollTop = Math.max(0, current * ROW_HEIGHT - el.clientHeight / 2)
    setScrollTop(el.scrollTop)
  }, [jumpToken])

  useEffect(() => () => cancelAnimationFrame(frame.current), [])

  const onScroll = () => {
    const el = box.current!
    const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_HEIGHT
    if (!atBottom && follow) onScrolledAway()
    if (!frame.current) {
      frame.current = requestAnimationFrame(() => {
        frame.current = 0
        setScrollTop(box.current?.scrollTop ?? 0)
      })
    }
  }

  const count = buffer.length
  const start = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN)
  const end = Math.min(count, Math.ceil((scrollTop + viewHeight) / ROW_HEIGHT) + OVERSCAN)
  const rows = []
  for (let i = start; i < end; i++) {
    const cls = i === current ? 'log-line match current' : matches.has(i) ? 'log-line match' : 'log-line'
    rows.push(<div key={i} class={cls} data-index={i} dangerouslySetInnerHTML={{ __html: ansiToHtml(buffer.lines[i]!) }} />)
  }

  return (
    <div
      ref={box}
      class="log-box"
      // A short log gets a short box; a long one stops at 60% of the screen and scrolls.
      style={{ height: `min(60vh, ${Math.max(count, 6) * ROW_HEIGHT + 24}px)` }}
      tabIndex={0}
      role="log"
      aria-label={label}
      aria-live="off"
      onScroll={onScroll}
      data-lines={count}
    >
      <div class="log-spacer" style={{ height: `${count * ROW_HEIGHT}px` }}>
        <div class="log-window" style={{ transform: `translateY(${start * ROW_HEIGHT}px)` }}>
          {rows}
        </div>
      </div>
      {count === 0 && <p class="log-empty muted">No log lines yet.</p>}
    </div>
  )
}
