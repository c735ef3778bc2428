/**
 * @module dev-app/test/support/browser
 * The repository's shared Chromium helpers (`test/support/browser.ts`: Debian chromium through playwright-core,
 * screenshots into test-artifacts/screenshots/), loaded by URL because that file belongs to the root `test`
 * TypeScript project, which this package's project cannot include.
 */
import type { Browser, Page } from 'playwright-core'

const shared = (await import(new URL('../../../test/support/browser.ts', import.meta.url).href)) as {
  launchBrowser(): Promise<Browser>
  saveScreenshot(page: Page, name: string): Promise<string>
}

/** Headless Chromium; throws naming Chromium when it is missing or cannot start (the test fails). */
export const launchBrowser = shared.launchBrowser
/** Saves a full-page screenshot as a test artifact and returns its path. */
export const saveScreenshot = shared.saveScreenshot
