/**
 * @module ui/app/log/useLogStream
 * Follows a log into a `LogBuffer`: the SSE stream (`EventSource`, cookie sent along) is opened with
 * `tail=0` for live lines, and once it is open the tail is fetched as JSON and joined with the lines
 * that arrived meanwhile (`mergeTail`). Replaying a 50,000-line tail as 50,000 SSE events takes
 * seconds in a browser; one JSON response takes a fraction of that (see bench/daemon-ui-log).
 *
 * Frames are `{"line": "..."}`; empty lines are keep-alives and ignored. Live lines are batched per
 * animation frame. Every (re)connection fetches the tail again, so nothing is lost or doubled across a
 * reconnect. A stream that fails for good triggers an auth check: a missing session goes to the
 * login page, anything else reconnects after a pause.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { mergeTail } from '../../lib/mergeTail.js'
import { api, ApiError, reportUnauthorized, type LogSource } from '../api.js'
import { LogBuffer } from './LogBuffer.js'

export type StreamState = 'connecting' | 'loading' | 'live' | 'reconnecting' | 'offline'

export interface LogStream {
  buffer: LogBuffer
  /** Increases on every change of the buffer; a render dependency. */
  version: number
  state: StreamState
}

const RETRY_MS = 3000

export function useLogStream(source: LogSource, tail: number): LogStream {
  const buffer = useRef(new LogBuffer()).current
  const [version, setVersion] = useState(0)
  const [state, setState] = useState<StreamState>('connecting')
  const { stream, tail: tailPath } = source

  useEffect(() => {
    let events: EventSource | undefined
    /** Live lines held back while the tail is being fetched. */
    let early: string[] | undefined
    let pending: string[] = []
    let frame = 0
    let retry: ReturnType<typeof setTimeout> | undefined
    let generation = 0
    let stopped = false

    const bump = () => setVersion((v) => v + 1)
    const flush = () => {
      frame = 0
      buffer.push(pending)
      pending = []
      bump()
    }

    const retryLater = () => {
      events?.close()
      setState('offline')
      if (!stopped) retry = setTimeout(connect, RETRY_MS)
    }

    const loadTail = async (gen: number) => {
      early = []
      setState('loading')
      try {
        const { logs } = await api.logTail(tailPath, tail)
        if (gen !== generation || stopped) return
        buffer.clear()
        buffer.push(mergeTail(logs, early))
        early = undefined
        pending = []
        bump()
        setState('live')
      } catch (err) {
        if (gen !== generation || stopped) return
        early = undefined
        // A 401 already went to the login page (api.ts); anything else: try again in a moment.
        if (!(err instanceof ApiError && err.status === 401)) retryLater()
        else events?.close()
      }
    }

    const connect = () => {
      const gen = ++generation
      events = new EventSource(`${stream}?tail=0`, { withCredentials: true })
      events.onopen = () => void loadTail(gen)
      events.onmessage = (event: MessageEvent<string>) => {
        let line: unknown
        try {
          line = (JSON.parse(event.data) as { line?: unknown }).line
        } catch {
          line = event.data
        }
        if (typeof line !== 'string' || line === '') return
        if (early) early.push(line)
        else {
          pending.push(line)
          if (!frame) frame = requestAnimationFrame(flush)
        }
      }
      events.onerror = () => {
        if (stopped || !events || gen !== generation) return
        if (events.readyState === EventSource.CONNECTING) {
          setState('reconnecting')
          return
        }
        // Closed for good (e.g. a 401 answer): find out why before trying again.
        events.close()
        setState('offline')
        api.authCheck().then((auth) => {
          if (auth.authEnabled && !auth.authenticated) reportUnauthorized()
          else retryLater()
        }, retryLater)
      }
    }

    buffer.clear()
    bump()
    setState('connecting')
    connect()
    return () => {
      stopped = true
      events?.close()
      if (frame) cancelAnimationFrame(frame)
      clearTimeout(retry)
    }
  }, [stream, tailPath, tail, buffer])

  return { buffer, version, state }
}
