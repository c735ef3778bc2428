/**
 * @module test/api/support/sseClient
 * Reads a server-sent event stream over real HTTP with `fetch`, one frame at a time.
 */

export interface SseFrame {
  event?: string
  data: string
  id?: string
}

export interface SseClient {
  response: Response
  /** The next frame, or `undefined` once the server has closed the stream. */
  next(): Promise<SseFrame | undefined>
  close(): void
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  return {
    response,
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const frame: SseFrame = { data: '' }
          const data: string[] = []
          for (const line of block.split('\n')) {
            const [field, ...rest] = line.split(':')
            const value = rest.join(':').replace(/^ /, '')
            if (field === 'data') data.push(value)
            else if (field === 'event') frame.event = value
            else if (field === 'id') frame.id = value
          }
          frame.data = data.join('\n')
          return frame
        }
        const { done, value } = await reader.read()
        if (done) return undefined
        buffer += value
      }
    },
    close() {
      controller.abort()
    },
  }
}
