/**
 * @module test/ui/support/uiJourney
 * Browser tests that do not depend on one another: each test gets its own browser context and page
 * (logged in through the API unless asked not to), so any one runs alone with `--grep` and a failure
 * cannot cascade. After each test its page must have raised no script error, CSP violation (console
 * errors) or 5xx response, and the daemon must have logged no internal error meanwhile.
 */
import { expect } from 'chai'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { RunningDaemon } from './realDaemon.js'
import { logInByApi } from './uiApi.js'

/** One test's own page and what went wrong in it. */
export interface Journey {
  context: BrowserContext
  page: Page
  /** Script errors, CSP violations (console errors) and 5xx responses seen by this page. */
  pageErrors: string[]
}

export interface JourneyOptions {
  /** false: the page starts logged out (to test the login page itself). @default true */
  loggedIn?: boolean
}

/** A fresh context and page on `daemon`, recording what went wrong in it. */
export async function openJourney(browser: Browser, daemon: Pick<RunningDaemon, 'url'>, { loggedIn = true }: JourneyOptions = {}): Promise<Journey> {
  const context = await browser.newContext({ baseURL: daemon.url, acceptDownloads: true, viewport: { width: 1280, height: 900 } })
  if (loggedIn) await logInByApi(context.request)
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 40[139]/.test(m.text())) pageErrors.push(m.text())
  })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  // Name the failing resource too (the console message has no URL).
  page.on('response', (r) => {
    if (r.status() >= 500) pageErrors.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`)
  })
  return { context, page, pageErrors }
}

/**
 * Defines tests (mocha `it`) on their own pages. `fixture` is read when a test runs, i.e. after the
 * suite's `before` started the browser and the daemon.
 */
export function journeys(fixture: () => { browser: Browser; daemon: RunningDaemon }) {
  return function journey(title: string, body: (j: Journey) => Promise<void>, options: JourneyOptions = {}): void {
    it(title, async () => {
      const { browser, daemon } = fixture()
      const daemonOutputBefore = daemon.output().length
      const j = await openJourney(browser, daemon, options)
      try {
        await body(j)
      } finally {
        await j.context.close()
      }
      const internal = daemon
        .output()
        .slice(daemonOutputBefore)
        .split('\n')
        .filter((line) => line.includes('internal error'))
      const seen = { pageErrors: j.pageErrors, internal }
      expect(seen, 'no script errors, CSP violations or daemon internal errors').to.deep.equal({ pageErrors: [], internal: [] })
    })
  }
}

/**
 * Records every text the job page's `#action-feedback` shows from now on, and returns a wait for one that
 * starts with a prefix. "Run started at …" and "Cancel requested at …" describe a run in flight and go
 * once it has ended, which a small job does within milliseconds: polling for them can miss them.
 */
export async function recordFeedback(page: Page): Promise<(prefix: string) => Promise<void>> {
  // A string, not a function: tsx would add helpers the page does not have.
  await page.evaluate(`(() => {
    window.__feedback = []
    const read = () => {
      const text = document.querySelector('#action-feedback')?.textContent ?? ''
      if (text && window.__feedback.at(-1) !== text) window.__feedback.push(text)
    }
    new MutationObserver(read).observe(document.body, { childList: true, characterData: true, subtree: true })
  })()`)
  // Read from here, not with waitForFunction: a string predicate is an eval, which the daemon's CSP refuses.
  return async (prefix) => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const shown = (await page.evaluate('window.__feedback')) as string[]
      if (shown.some((text) => text.startsWith(prefix))) return
      if (Date.now() > deadline) throw new Error(`#action-feedback never showed "${prefix}…" (it showed ${JSON.stringify(shown)})`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
