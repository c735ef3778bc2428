/**
 * @module server/lineSender
 * Sends log lines to one stream client in order, one write at a time, with a bounded queue: a client
 * that reads slower than the log grows must not grow the daemon's memory. Past `maxQueued` lines waiting,
 * new lines are dropped and counted; once there is room again the client gets one line saying how many
 * it missed, then the log goes on.
 */

export interface LineSenderOptions {
  /** Writes one line to the client; its promise settles when the client has taken it. */
  write(line: string): Promise<unknown>
  /** Lines allowed to wait. Leave room for a full tail replay (50000). @default 60000 */
  maxQueued?: number
}

export function lineSender({ write, maxQueued = 60_000 }: LineSenderOptions): (line: string) => void {
  const queue: string[] = []
  let head = 0
  let pumping = false
  let skipped = 0

  async function pump() {
    pumping = true
    try {
      while (head < queue.length) {
        const line = queue[head]!
        // Drop sent lines in chunks rather than shifting one by one (O(n) per shift on a long queue).
        if (++head > 1024 && head * 2 > queue.length) {
          queue.splice(0, head)
          head = 0
        }
        await write(line)
      }
    } catch {
      // The client is gone; the stream's abort handler unsubscribes.
      queue.length = 0
      head = 0
    } finally {
      pumping = false
    }
  }

  return function send(line: string) {
    if (queue.length - head >= maxQueued) {
      skipped += 1
      return
    }
    if (skipped > 0) {
      queue.push(`[${skipped} line(s) skipped: the client reads more slowly than the log grows]`)
      skipped = 0
    }
    queue.push(line)
    if (!pumping) void pump()
  }
}
