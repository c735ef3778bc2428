/**
 * @module ui/app/log/useLogStream
 * Follows a log's SSE stream (`EventSource`, cookie sent along) into a `LogBuffer`. Frames are
 * `{"line": "..."}`; empty lines are keep-alives and ignored. Lines are batched per animation frame,
 * so a 50,000-line replay costs a handful of renders, not 50,000. Each (re)connection replays the
 * tail, so the buffer is cleared on open. A stream that fails for good triggers an auth check: a
 * missing session goes to the login page, anything else reconnects after a pause.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, reportUnauthorized } from '../api.js'
import { LogBuffer } from './LogBuffer.js'

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'offline'

export interface LogStream {
  buffer: LogBuffer
  /** Increases on every change of the buffer; a render dependency. */
  version: number
  state: StreamState
}

const RETRY_MS = 3000

export function useLogStream(url: string, tail: number): LogStream {
  const buffer = useRef(new LogBuffer()).current
  const [version, setVersion] = useState(0)
  const [state, setState] = useState<StreamState>('connecting')

  useEffect(() => {
    let source: EventSource | undefined
    let pending: string[] = []
    let frame = 0
    let retry: ReturnType<typeof setTimeout> | undefined
    let stopped = false

    const flush = () => {
      frame = 0
      buffer.push(pending)
      pending = []
      setVersion((v) => v + 1)
    }

    const connect = () => {
      setState((s) => (s === 'connecting' ? s : 'reconnecting'))
      source = new EventSource(`${url}?tail=${tail}`, { withCredentials: true })
      source.onopen = () => {
        buffer.clear()
        pending = []
        setVersion((v) => v + 1)
        setState('live')
      }
      source.onmessage = (event: MessageEvent<string>) => {
        let line: unknown
        try {
          line = (JSON.parse(event.data) as { line?: unknown }).line
        } catch {
          line = event.data
        }
        if (typeof line !== 'string' || line === '') return
        pending.push(line)
        if (!frame) frame = requestAnimationFrame(flush)
      }
      source.onerror = () => {
        if (stopped || !source) return
        if (source.readyState === EventSource.CONNECTING) {
          setState('reconnecting')
          return
        }
        // Closed for good (e.g. a 401 answer): find out why before trying again.
        source.close()
        setState('offline')
        api.authCheck().then(
          (auth) => {
            if (auth.authEnabled && !auth.authenticated) reportUnauthorized()
            else if (!stopped) retry = setTimeout(connect, RETRY_MS)
          },
          () => {
            if (!stopped) retry = setTimeout(connect, RETRY_MS)
          },
        )
      }
    }

    buffer.clear()
    setVersion((v) => v + 1)
    setState('connecting')
    connect()
    return () => {
      stopped = true
      source?.close()
      if (frame) cancelAnimationFrame(frame)
      clearTimeout(retry)
    }
  }, [url, tail, buffer])

  return { buffer, version, state }
}
