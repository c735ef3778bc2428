/**
 * @module test/restoreMatrix/support/uiRestore
 * The matrix's one UI cell, as a person does it: log in on the login page, open the job, press
 * "Restore…" on the newest snapshot, name the folder, tick the library upload, confirm, and wait for the
 * dialog's result. Rejects with what the dialog shows when the restore did not succeed.
 */
import { launchBrowser, saveScreenshot } from '../../ui/support/browser.js'

export interface UiRestoreOptions {
  url: string
  job: string
  folder: string
  username: string
  password: string
}

export async function uiRestore({ url, job, folder, username, password }: UiRestoreOptions): Promise<void> {
  const browser = await launchBrowser()
  try {
    const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto(`/jobs/${job}`)
    await page.locator('input[name=username]').fill(username)
    await page.locator('input[name=password]').fill(password)
    await page.keyboard.press('Enter')
    const row = page.locator('tr[data-snapshot]').first()
    await row.waitFor({ timeout: 30_000 })
    const name = (await row.getAttribute('data-snapshot'))!
    await page.getByRole('button', { name: `Restore ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Restore ${name}` })
    await dialog.waitFor()
    await dialog.getByLabel(/^Folder/).fill(folder)
    await dialog.getByLabel("Then upload the job's videos back into their library").check()
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click()
    const ended = dialog.locator('[data-task-status="success"], [data-task-status="failed"], [role=alert]').first()
    await ended.waitFor({ timeout: 120_000 })
    const status = await ended.getAttribute('data-task-status')
    await saveScreenshot(page, 'restore-matrix-ui')
    if (status !== 'success') throw new Error(`the restore dialog shows: ${(await dialog.textContent())?.replace(/\s+/g, ' ').trim()}`)
    if (errors.length > 0) throw new Error(`script errors on the page: ${errors.join('; ')}`)
  } finally {
    await browser.close()
  }
}
