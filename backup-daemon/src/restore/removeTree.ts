/**
 * @module restore/removeTree
 * Removes a folder and everything below it with a bounded number of file system calls in flight. Node's
 * `rm(dir, { recursive: true })` starts the removal of every entry of a folder at once, and of every
 * subfolder at once: a drill's scratch folder of 200,000 small files had ~160,000 unlinks pending, with
 * their callbacks and paths, and that removal was the drill's peak memory (430 MB; issue 42). Here a folder's
 * entries go `inFlight` at a time, subfolders one after another. Links are removed, never followed; names
 * are bytes, so any name a Linux file system allows goes.
 */
import { readdir, rmdir, unlink } from 'node:fs/promises'

const inFlight = 64
const slash = Buffer.from('/')

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT'

async function removeBelow(dir: Buffer): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true, encoding: 'buffer' })
  const files: Buffer[] = []
  for (const entry of entries) {
    const path = Buffer.concat([dir, slash, entry.name])
    if (entry.isDirectory()) await removeBelow(path)
    else files.push(path)
  }
  for (let i = 0; i < files.length; i += inFlight)
    await Promise.all(files.slice(i, i + inFlight).map((path) => unlink(path).catch((err) => (missing(err) ? undefined : Promise.reject(err)))))
  await rmdir(dir)
}

/** Removes `path` (a folder, a file or a link) and what it holds; nothing there is not an error. */
export async function removeTree(path: string): Promise<void> {
  const bytes = Buffer.from(path)
  try {
    await removeBelow(bytes)
  } catch (err) {
    if (missing(err)) return
    if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err
    await unlink(bytes).catch((e) => (missing(e) ? undefined : Promise.reject(e)))
  }
}
