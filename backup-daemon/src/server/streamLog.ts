/**
 * @module server/streamLog
 * A log as server-sent events: up to `tail` existing lines first, then every new line as it is appended,
 * each a `message` event with data `{"line": "..."}`, and a keep-alive `{"line":""}` every `keepAliveMs`
 * so proxies keep the connection open. A `refusal` (log switched off, unknown job) is sent as one message
 * and the stream closes. The subscription ends when the client goes away or its session ends (logout,
 * expiry).
 */
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { LogHub, LogScope } from '../engine/types.js'
import { lineSender } from './lineSender.js'

export interface StreamLogOptions {
  logs: LogHub
  scope: LogScope
  tail: number
  keepAliveMs: number
  /** When set, the one line sent before closing instead of the log. */
  refusal?: string
  /** Ends the stream when the session it was opened with ends (`RouteDeps.untilSessionEnds`). */
  untilSessionEnds?: (onEnd: () => void) => () => void
}

export function streamLog(c: Context, { logs, scope, tail, keepAliveMs, refusal, untilSessionEnds }: StreamLogOptions): Response {
  // Reverse proxies (nginx) would otherwise buffer the stream and delay every line.
  c.header('X-Accel-Buffering', 'no')
  // Hono answers HEAD with the GET handler and drops the body: never subscribe for one.
  if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
  return streamSSE(
    c,
    async (stream) => {
      const frame = (line: string) => stream.writeSSE({ data: JSON.stringify({ line }) })
      if (refusal !== undefined) {
        await frame(refusal)
        return
      }
      // One write at a time, in order, with a bounded queue for clients that read slowly.
      const send = lineSender({ write: frame })
      // Tail and subscribe in the same tick: no line can slip in between, none arrives twice.
      const backlog = tail > 0 ? logs.tail(scope, tail) : []
      const unsubscribe = logs.subscribe(scope, send)
      for (const line of backlog) send(line)
      const keepAlive = setInterval(() => send(''), keepAliveMs)
      // A logout or the session's expiry ends the stream like a client going away.
      const stopWatching = untilSessionEnds?.(() => stream.abort())
      try {
        await new Promise<void>((resolve) => {
          if (stream.aborted) resolve()
          else stream.onAbort(resolve)
        })
      } finally {
        clearInterval(keepAlive)
        stopWatching?.()
        unsubscribe()
      }
    },
    async () => {
      // A failed write means the client is gone; the finally above has already cleaned up.
    },
  )
}
