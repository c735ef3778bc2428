/**
 * @module server/routes/runEventStream
 * The server-sent events of a run followed live, shared by a job's run stream (`/jobs/{name}/progress`)
 * and its task stream (`/jobs/{name}/tasks/current/progress`): `progress` (RunProgress) and `end`
 * (RunRecord) frames, one write at a time. A slow client gets only the newest snapshot, never a growing
 * queue (an `end` always waits its turn). A keep-alive comment every `keepAliveMs` while idle.
 */
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { RunRecord } from '../../runs/history.js'
import type { RunListener } from '../../runs/RunWatchers.js'
import type { RunProgress } from '../../runs/progress.js'
import type { AppEnv } from '../appEnv.js'

type Frame = { event: 'progress'; data: RunProgress } | { event: 'end'; data: RunRecord }

export interface RunEventStreamOptions {
  keepAliveMs: number
  /** Close the stream once an `end` frame is written (a task stream follows one task); else it stays open for the next run. */
  closeOnEnd?: boolean
  /** Starts following: `listener` may be called at once (the current state); returns the function that stops it. */
  subscribe(listener: RunListener): (() => void) | undefined
  /** Ends the stream when the session it was opened with ends (`RouteDeps.untilSessionEnds`). */
  untilSessionEnds?: (onEnd: () => void) => () => void
}

export function runEventStream(c: Context<AppEnv>, { keepAliveMs, closeOnEnd = false, subscribe, untilSessionEnds }: RunEventStreamOptions): Response {
  c.header('X-Accel-Buffering', 'no')
  return streamSSE(
    c,
    async (stream) => {
      let finish!: () => void
      const finished = new Promise<void>((resolve) => (finish = resolve))
      const waiting: Frame[] = []
      let writing = false
      const pump = async () => {
        writing = true
        try {
          for (let frame = waiting.shift(); frame; frame = waiting.shift()) {
            await stream.writeSSE({ event: frame.event, data: JSON.stringify(frame.data) })
            if (frame.event === 'end' && closeOnEnd) finish()
          }
        } catch {
          waiting.length = 0
          finish()
        } finally {
          writing = false
        }
      }
      const send = (frame: Frame) => {
        const last = waiting.at(-1)
        if (frame.event === 'progress' && last?.event === 'progress') waiting[waiting.length - 1] = frame
        else waiting.push(frame)
        if (!writing) void pump()
      }
      if (stream.aborted) return
      stream.onAbort(finish)
      // A logout or the session's expiry ends the stream like a client going away.
      const stopWatching = untilSessionEnds?.(finish)
      const unsubscribe = subscribe({ progress: (data) => send({ event: 'progress', data }), end: (data) => send({ event: 'end', data }) })
      const keepAlive = setInterval(() => {
        if (!writing) void stream.write(': keep-alive\n\n').catch(() => {})
      }, keepAliveMs)
      try {
        await finished
      } finally {
        clearInterval(keepAlive)
        stopWatching?.()
        unsubscribe?.()
      }
    },
    async () => {
      // A failed write means the client is gone; the finally above has already cleaned up.
    },
  ) as Response
}
