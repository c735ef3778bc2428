/**
 * @module test/ui/support/uiApi
 * What a browser test sets up through the daemon's API rather than the page: a logged-in context and a
 * committed snapshot, so each test makes the state it needs itself instead of relying on an earlier test.
 */
import { expect } from 'chai'
import type { APIRequestContext } from 'playwright-core'
import { uiPassword, uiUser } from './realDaemon.js'

/** Logs `request`'s context in through the API (the login page itself is tested in its own test). */
export async function logInByApi(request: APIRequestContext): Promise<void> {
  const response = await request.post('/api/v1/auth/login', { data: { username: uiUser, password: uiPassword } })
  expect(response.status(), await response.text()).to.equal(200)
}

/** The job's committed snapshots as the API lists them, newest first. */
export async function listBackups(request: APIRequestContext, job: string): Promise<string[]> {
  const response = await request.get(`/api/v1/jobs/${job}/backups`)
  expect(response.status()).to.equal(200)
  return ((await response.json()) as { backups: { name: string }[] }).backups.map((b) => b.name)
}

/** Makes sure `job` has a committed snapshot: runs it if it has none and waits (30 s at most) for it. */
export async function ensureBackup(request: APIRequestContext, job: string): Promise<string> {
  const existing = await listBackups(request, job)
  if (existing.length > 0) return existing[0]!
  // 409: a run started by another test is under way; its snapshot serves as well.
  expect((await request.post(`/api/v1/jobs/${job}/run`)).status()).to.be.oneOf([202, 409])
  const deadline = Date.now() + 30_000
  for (;;) {
    const backups = await listBackups(request, job)
    if (backups.length > 0) return backups[0]!
    if (Date.now() > deadline) throw new Error(`no snapshot of ${job} within 30 s`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
