/**
 * @module test/support/browser
 * Headless Chromium for browser tests: Debian's `chromium` driven by playwright-core (a test tool's own
 * browser download cannot work on these machines). Screenshots go to `test-artifacts/screenshots/`.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Launches headless Chromium. When it is missing or cannot start, this throws an error that names Chromium and
 * how to install it: a browser test that cannot run here fails (it is never skipped).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium is not installed at ${chromiumPath}: apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium binary)`)
  }
  try {
    return await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    })
  } catch (error) {
    throw new Error(`Chromium at ${chromiumPath} did not start: ${(error as Error).message}`, { cause: error })
  }
}

const artifactsRoot = new URL('../../test-artifacts/screenshots/', import.meta.url).pathname

/** Saves a full-page screenshot as a test artifact and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifactsRoot, { recursive: true })
  const file = join(artifactsRoot, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}
