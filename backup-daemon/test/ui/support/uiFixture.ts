/**
 * @module test/ui/support/uiFixture
 * Shared set-up of the browser tests: a temp folder with sources and storages, a real daemon over it,
 * headless Chromium, and helpers to find a snapshot's file in a local storage and to log in.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { uiPassword, uiUser, type DaemonJob } from './realDaemon.js'

/**
 * Jobs over real folders: `small` finishes in a moment, `huge` reads a 64 GiB sparse file (to cancel),
 * `parted` splits its snapshot into parts, `archive` is paused.
 */
export function makeJobs(dir: string): DaemonJob[] {
  const small = join(dir, 'src-small')
  mkdirSync(join(small, 'docs'), { recursive: true })
  writeFileSync(join(small, 'hello.txt'), 'hello from the UI test\n')
  writeFileSync(join(small, 'docs', 'random.bin'), randomBytes(200_000))
  const huge = join(dir, 'src-huge')
  mkdirSync(huge, { recursive: true })
  // Sparse: no disk used, but gzip has 64 GiB of zeros to chew through, far longer than the test.
  const fd = openSync(join(huge, 'sparse.img'), 'w')
  ftruncateSync(fd, 64 * 1024 ** 3)
  closeSync(fd)
  return [
    {
      name: 'small',
      schedule: '0 3 * * *',
      sources: [{ type: 'local', name: 'files', path: small }],
      storages: [{ type: 'local', name: 'disk', path: join(dir, 'store-small') }],
    },
    {
      name: 'huge',
      schedule: '',
      sources: [{ type: 'local', name: 'disk-image', path: huge }],
      storages: [{ type: 'local', name: 'disk', path: join(dir, 'store-huge') }],
    },
    // Split into 64 KiB parts: the UI shows the part count and downloads the set whole.
    {
      name: 'parted',
      schedule: '0 */6 * * *',
      split: { chunkSize: 65_536 },
      sources: [{ type: 'local', name: 'files', path: small }],
      storages: [{ type: 'local', name: 'disk', path: join(dir, 'store-parted') }],
    },
    {
      name: 'archive',
      schedule: '30 4 * * 0',
      active: false,
      sources: [{ type: 'local', name: 'files', path: small }],
      storages: [{ type: 'local', name: 'disk', path: join(dir, 'store-archive') }],
    },
  ]
}

/** The path of the file called `name` under `root` (a local storage folder), searched recursively. */
export function findFile(root: string, name: string): string | undefined {
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name === name) return join(entry.parentPath, entry.name)
  }
  return undefined
}

/** Logs in on the login page using the keyboard only (focus starts on the username field). */
export async function logInWithKeyboard(page: Page, password = uiPassword): Promise<void> {
  await page.waitForSelector('input[name=username]:focus')
  await page.keyboard.type(uiUser)
  await page.keyboard.press('Tab')
  await page.keyboard.type(password)
  await page.keyboard.press('Enter')
}

/** The bytes of a split set as stored: the files of its parts folder in part order (aaa..zzz, then baaa). */
export function readSplitSet(root: string, name: string): Buffer {
  const entry = readdirSync(root, { recursive: true, withFileTypes: true }).find((e) => e.isDirectory() && e.name.startsWith(`${name}.parts-`))
  if (!entry) throw new Error(`no parts folder for ${name} under ${root}`)
  const folder = join(entry.parentPath, entry.name)
  const parts = readdirSync(folder).sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
  return Buffer.concat(parts.map((p) => readFileSync(join(folder, p))))
}
