/**
 * @module test/support/playAndSeek
 * What a viewer does with a player, checked the way a viewer sees it: press play (muted, as browsers
 * allow without a gesture), the picture moves (`currentTime` advances, `readyState >= 3`), then seek and
 * the picture moves on from there.
 */
import type { Page } from 'playwright-core'

/** Plays the `<video>` at `selector` until it has played 0.5 s, seeks to `seekTo` s and waits until it plays on from there. */
export async function playAndSeek(page: Page, selector: string, seekTo: number, timeoutMs = 60_000): Promise<void> {
  const video = page.locator(selector)
  // As a viewer does: press play once the player shows a video (its source attached, metadata read). A
  // player that attaches its source after the element appears aborts an earlier play() ("interrupted by a
  // new load request"); a viewer then presses play again, and so does this, a few times at most.
  await page.waitForFunction((s) => (document.querySelector<HTMLVideoElement>(s)?.readyState ?? 0) >= 1, selector, { timeout: timeoutMs })
  await video.evaluate(async (v: HTMLVideoElement) => {
    v.muted = true
    for (let attempt = 1; ; attempt++) {
      try {
        await v.play()
        return
      } catch (err) {
        if ((err as DOMException).name !== 'AbortError' || attempt === 3) throw err
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
  })
  await page.waitForFunction(
    (s) => {
      const v = document.querySelector<HTMLVideoElement>(s)
      return Boolean(v && !v.paused && v.currentTime > 0.5 && v.readyState >= 3)
    },
    selector,
    { timeout: timeoutMs },
  )
  await video.evaluate(
    (v: HTMLVideoElement, to: number) =>
      new Promise<void>((resolve) => {
        v.addEventListener('seeked', () => resolve(), { once: true })
        v.currentTime = to
      }),
    seekTo,
  )
  await page.waitForFunction(
    ([s, to]) => {
      const v = document.querySelector<HTMLVideoElement>(s as string)
      return Boolean(v && !v.paused && v.currentTime > (to as number) + 0.5 && v.readyState >= 3)
    },
    [selector, seekTo] as const,
    { timeout: timeoutMs },
  )
}
