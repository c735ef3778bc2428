/**
 * @module test/support/cmsProcess
 * `startCms` in a child process, for the Payload-4 compatibility suite: that suite copies the plugin's
 * sources and this folder into a project where `payload` resolves to a 4.x build and runs this file with
 * Node 24. The parent passes the emulator's coordinates and a scenario name in `CMS_PROCESS_INPUT`
 * (options with callbacks cannot cross a process boundary); this prints one line `CMS_READY {json}` with
 * the URL and tokens, then serves until stdin closes or SIGTERM. A line `sweep` on stdin runs the
 * orphan sweep of client uploads now (age limit 0) and answers `SWEPT {json}` with the deleted keys.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { resolveOptions, sweepOrphanUploads } from '../../src/index.js'
import { type CmsProcessInput, type CmsProcessReady, scenarioOptions } from './cmsScenario.js'
import { startCms } from './startCms.js'

const input = JSON.parse(process.env.CMS_PROCESS_INPUT ?? '{}') as CmsProcessInput
const options = scenarioOptions(input)
const cms = await startCms(options, { databaseUri: input.databaseUri, dataDir: input.dataDir, fileSizeLimit: input.fileSizeLimit, secret: input.secret })
// `payload/package.json` is not in payload's exports map: find it from the resolved entry.
const entry = fileURLToPath(import.meta.resolve('payload'))
const payloadVersion = (JSON.parse(await readFile(join(entry.slice(0, entry.lastIndexOf('/dist/')), 'package.json'), 'utf8')) as { version: string }).version
const storage = (cms.payload.config as { storage?: Array<{ name: string }> }).storage ?? []
const ready: CmsProcessReady = {
  nodeVersion: process.version,
  otherToken: cms.otherToken,
  payloadVersion,
  storageAdapters: storage.map((adapter) => adapter.name),
  token: cms.token,
  url: cms.url,
}
process.stdout.write(`CMS_READY ${JSON.stringify(ready)}\n`)

let closing = false
const shutdown = () => {
  if (closing) return
  closing = true
  void cms.close().finally(() => process.exit(0))
}
process.on('SIGTERM', shutdown)
process.stdin.on('end', shutdown)
let pending = ''
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  pending += chunk
  let newline: number
  while ((newline = pending.indexOf('\n')) >= 0) {
    const command = pending.slice(0, newline).trim()
    pending = pending.slice(newline + 1)
    if (command === 'sweep') {
      void sweepOrphanUploads(cms.payload, resolveOptions(options), { olderThanMs: 0 }).then(
        (deleted) => process.stdout.write(`SWEPT ${JSON.stringify(deleted)}\n`),
        (err: Error) => process.stdout.write(`SWEPT ${JSON.stringify({ error: err.message })}\n`),
      )
    }
  }
})
