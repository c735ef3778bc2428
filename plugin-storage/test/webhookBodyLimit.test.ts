/**
 * The webhook caps its body before the signature is checked: anyone can POST there. A CMS in a child
 * process (its RSS read from /proc) gets 200 MB bodies, streamed chunked and declared by Content-Length,
 * with plausible signature headers: each is refused with 413 in the plugin's error shape after at most
 * 64 KiB was read, the process's memory does not grow by the body size, and good callbacks still work.
 */
import { readFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'

import { expect } from 'chai'
import { startEmulator, webhookSignatureHeaders, type RunningEmulator } from 'dev-app/emulator'

import { WEBHOOK_PATH } from '../src/constants.js'
import { startCmsChild, type RemoteCms } from './support/cmsChild.js'

const MiB = 1024 * 1024

/** VmRSS and VmHWM (peak) of a process, in bytes. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kB = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
  return { peak: kB('VmHWM'), rss: kB('VmRSS') }
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  /** Bytes the client managed to hand to the socket before the answer came. */
  sent: number
}

/**
 * POSTs `total` bytes of JSON-looking filler in 1 MiB chunks (chunked, or with `Content-Length` when
 * `declare`), honouring back-pressure, and stops sending as soon as the answer arrives.
 */
function postHuge(url: string, total: number, declare: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(MiB, 0x20)
    let sent = 0
    let answered = false
    const req = httpRequest(
      url,
      {
        headers: {
          'Content-Type': 'application/json',
          'X-HostStream-Signature': 'a'.repeat(64),
          'X-HostStream-Signature-Algorithm': 'hmac-sha256',
          'X-HostStream-Signature-Version': 'v1',
          ...(declare ? { 'Content-Length': String(total) } : {}),
        },
        method: 'POST',
      },
      (res) => {
        answered = true
        let body = ''
        res.setEncoding('utf8').on('data', (c: string) => (body += c))
        res.on('end', () => {
          resolve({ body, headers: res.headers, sent, status: res.statusCode ?? 0 })
          req.destroy()
        })
        res.on('error', reject)
      },
    )
    // Writes after the answer (the server stopped reading and closes) may fail: that is the point.
    req.on('error', (err) => {
      if (!answered) reject(err)
    })
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length
        if (!req.write(chunk)) {
          req.once('drain', pump)
          return
        }
      }
      if (!answered) req.end()
    }
    pump()
  })
}

describe('webhook body limit (CMS in a child process)', function () {
  this.timeout(180_000)
  let emu: RunningEmulator
  let cms: RemoteCms

  const webhookUrl = () => `${cms.url}/api${WEBHOOK_PATH}`
  const signedCallback = (status: number) => {
    const raw = JSON.stringify({ Status: status, VideoGuid: '00000000-0000-0000-0000-000000000000', VideoLibraryId: emu.stream.libraryId })
    return fetch(webhookUrl(), { body: raw, headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) }, method: 'POST' })
  }

  before(async () => {
    emu = await startEmulator()
    cms = await startCmsChild({
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      emu,
      input: { scenario: 'default' },
      label: 'the CMS',
      node: process.execPath,
      script: 'test/support/cmsProcess.ts',
    })
  })
  after(async () => {
    await cms?.close()
    await emu?.close()
  })

  it('refuses 200 MB bodies (chunked and declared) with 413 without reading them into memory', async () => {
    // Warm up the route (first requests compile and allocate), then take the baseline.
    for (let i = 0; i < 3; i++) expect((await signedCallback(0)).status).to.equal(200)
    const before = await memoryOf(cms.pid)

    const chunked = await postHuge(webhookUrl(), 200 * MiB, false)
    const declared = await postHuge(webhookUrl(), 200 * MiB, true)
    const after = await memoryOf(cms.pid)
    const growth = { peak: (after.peak - before.peak) / MiB, rss: (after.rss - before.rss) / MiB }
    // 400 MB were offered; a buffered body would add at least 200 MB to the peak.
    expect(growth.rss, `RSS growth ${growth.rss.toFixed(1)} MiB`).to.be.below(50)
    expect(growth.peak, `peak RSS growth ${growth.peak.toFixed(1)} MiB`).to.be.below(50)

    expect(chunked.status, chunked.body).to.equal(413)
    expect(JSON.parse(chunked.body)).to.deep.equal({ errors: [{ message: 'The request body exceeds 65536 bytes.' }] })
    expect(declared.status, declared.body).to.equal(413)
    expect(JSON.parse(declared.body)).to.have.nested.property('errors[0].message')
    // The CMS stopped reading long before the end: the client could not hand it everything.
    expect(chunked.sent).to.be.below(200 * MiB)
  })

  it('still acknowledges good callbacks, and a body just over the limit is 413 in the plugin error shape', async () => {
    expect((await signedCallback(1)).status).to.equal(200)
    const raw = JSON.stringify({ Status: 1, VideoGuid: 'x'.repeat(64 * 1024), VideoLibraryId: emu.stream.libraryId })
    const res = await fetch(webhookUrl(), { body: raw, headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) }, method: 'POST' })
    expect(res.status).to.equal(413)
    expect(((await res.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(/exceeds 65536 bytes/)
  })
})
