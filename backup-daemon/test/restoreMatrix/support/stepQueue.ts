/**
 * @module test/restoreMatrix/support/stepQueue
 * Runs the matrix's restores side by side within CI's time: steps are queued on named lanes (one lane's
 * steps run in order: a job runs one API task at a time, the in-place restores share the live sources) and
 * at most `slots` steps run at once over all lanes (two shared cores). A free slot goes to the ready step
 * whose lane has the most steps still to run (the longest lane decides when the matrix ends; first come
 * first served left the longest lanes' steps behind every short one, to finish last). Each step's promise
 * is its outcome; a failed step does not stop its lane.
 */
export interface StepQueue {
  /**
   * Queues `step` after the steps already on `lane` (on every lane given); resolves or rejects as the step does.
   * `label` names it in `timings()` (default: its lanes); a step `first` goes before every other ready step
   * (a backup: every restore of its storage waits for it).
   */
  add<T>(lane: string | string[], step: () => Promise<T>, label?: string, first?: boolean): Promise<T>
  /** Makes `lane`'s next steps wait for `promise` too (without taking a slot while they wait). */
  wait(lane: string, promise: Promise<unknown>): void
  /** Every step run so far: its lanes, and when it held its slot (ms since the queue was made). */
  timings(): StepTiming[]
}

export interface StepTiming {
  label: string
  lanes: string[]
  start: number
  end: number
}

interface Waiter {
  lanes: string[]
  first: boolean
  order: number
  start(): void
}

export function stepQueue(slots: number): StepQueue {
  const lanes = new Map<string, Promise<unknown>>()
  /** Per lane, its steps added and not started yet. */
  const pending = new Map<string, number>()
  const count = (lane: string, by: number) => pending.set(lane, (pending.get(lane) ?? 0) + by)
  const weight = (waiter: Waiter) => (waiter.first ? Infinity : Math.max(...waiter.lanes.map((lane) => pending.get(lane) ?? 0)))
  const waiting: Waiter[] = []
  let running = 0
  let added = 0
  const next = (): Waiter | undefined => {
    if (waiting.length === 0) return undefined
    // A step `first`, else the heaviest lane; among equals, the step that became ready first.
    let best = 0
    for (let i = 1; i < waiting.length; i++) {
      const [a, b] = [weight(waiting[i]!), weight(waiting[best]!)]
      if (a > b || (a === b && waiting[i]!.order < waiting[best]!.order)) best = i
    }
    return waiting.splice(best, 1)[0]
  }
  // A slot is handed straight to the next waiter, so no new step can slip in between.
  const acquire = (names: string[], first: boolean) =>
    new Promise<void>((resolve) => {
      const waiter = { lanes: names, first, order: added++, start: resolve }
      if (running < slots) {
        running++
        resolve()
      } else waiting.push(waiter)
    })
  const release = () => {
    const waiter = next()
    if (waiter) waiter.start()
    else running--
  }
  const made = Date.now()
  const done: StepTiming[] = []
  const slot = async <T>(names: string[], label: string, first: boolean, step: () => Promise<T>): Promise<T> => {
    await acquire(names, first)
    for (const name of names) count(name, -1)
    const start = Date.now() - made
    try {
      return await step()
    } finally {
      done.push({ label, lanes: names, start, end: Date.now() - made })
      release()
    }
  }
  const tail = (lane: string) => lanes.get(lane) ?? Promise.resolve()
  return {
    add(lane, step, label, first = false) {
      const names = Array.isArray(lane) ? lane : [lane]
      for (const name of names) count(name, 1)
      const result = Promise.allSettled(names.map(tail)).then(() => slot(names, label ?? names.join('+'), first, step))
      for (const name of names)
        lanes.set(
          name,
          result.catch(() => {}),
        )
      return result
    },
    wait(lane, promise) {
      lanes.set(lane, Promise.allSettled([tail(lane), promise]))
    },
    timings: () => [...done],
  }
}
