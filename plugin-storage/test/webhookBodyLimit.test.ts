/**
 * The webhook caps its body before the signature is checked: anyone can POST there. A CMS in a child
 * process (its RSS read from /proc) gets 200 MB bodies, streamed chunked and declared by Content-Length,
 * with plausible signature headers: each is refused with 413 in the plugin's error shape after at most
 * 64 KiB was read, the process's memory does not grow by the body size, and good callbacks still work.
 * A body that stalls half-way is cut off at the plugin's deadline instead of Node's 300 s.
 */
import { readFile } from 'node:fs/promises'
import { connect } from 'node:net'
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
  headers: Record<string, string>
  body: string
  /** Bytes of body the client managed to hand to the socket before the answer came. */
  sent: number
}

/** Status, headers and (de-chunked) body of a complete HTTP/1.1 answer in `raw`, or undefined while incomplete. */
function parseAnswer(raw: Buffer): Omit<Answer, 'sent'> | undefined {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim()
  const status = Number(statusLine!.split(' ')[1])
  let rest = raw.subarray(end + 4)
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length'])
    return rest.length >= length ? { body: rest.subarray(0, length).toString('utf8'), headers, status } : undefined
  }
  const parts: Buffer[] = []
  for (;;) {
    const lineEnd = rest.indexOf('\r\n')
    if (lineEnd < 0) return undefined
    const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16)
    if (size === 0) return { body: Buffer.concat(parts).toString('utf8'), headers, status }
    if (rest.length < lineEnd + 2 + size + 2) return undefined
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size))
    rest = rest.subarray(lineEnd + 2 + size + 2)
  }
}

/**
 * The head of a webhook POST with plausible signature headers (so the body must be read before the
 * signature can be checked) and the given length header, ending in the blank line.
 */
function webhookHead(url: string, lengthHeader: string): string {
  const { hostname, pathname, port } = new URL(url)
  const lines = [
    `POST ${pathname} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Content-Type: application/json',
    `X-HostStream-Signature: ${'a'.repeat(64)}`,
    'X-HostStream-Signature-Algorithm: hmac-sha256',
    'X-HostStream-Signature-Version: v1',
    lengthHeader,
  ]
  return `${lines.join('\r\n')}\r\n\r\n`
}

/**
 * POSTs `total` bytes of filler in 1 MiB chunks (chunked, or with `Content-Length` when `declare`) over
 * a raw socket (nock, loaded by other suites in this process, would buffer a node:http request body),
 * honouring back-pressure, and stops sending as soon as the answer is there.
 */
function postHuge(url: string, total: number, declare: boolean): Promise<Answer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(MiB, 0x20)
    let sent = 0
    let answer: Omit<Answer, 'sent'> | undefined
    let received = Buffer.alloc(0)
    const socket = connect({ host: hostname, port: Number(port) })
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data])
      answer ??= parseAnswer(received)
      if (answer) {
        resolve({ ...answer, sent })
        socket.destroy()
      }
    })
    // Writes after the answer (the server stopped reading) may fail: that is the point.
    socket.on('error', (err) => {
      if (!answer) reject(err)
    })
    socket.on('close', () => {
      if (!answer) reject(new Error(`connection closed without an answer (${received.length} bytes received)`))
    })
    const head = webhookHead(url, declare ? `Content-Length: ${total}` : 'Transfer-Encoding: chunked')
    const pump = () => {
      while (!answer && !socket.destroyed && sent < total) {
        sent += chunk.length
        const ok = declare ? socket.write(chunk) : socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]))
        if (!ok) {
          socket.once('drain', pump)
          return
        }
      }
      if (!answer && !socket.destroyed && !declare) socket.write('0\r\n\r\n')
    }
    socket.once('connect', () => {
      socket.write(head)
      pump()
    })
  })
}

/**
 * Sends the head and half of a declared body, then nothing; resolves with how long the server kept the
 * connection and what it answered, if anything, before closing it.
 */
function postStalled(url: string): Promise<{ heldMs: number; received: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const started = Date.now()
    let received = ''
    const socket = connect({ host: hostname, port: Number(port) })
    const give = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server still held the stalled request after 60 s (${received.length} bytes answered)`))
    }, 60_000)
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(give)
      resolve({ heldMs: Date.now() - started, received })
    })
    socket.once('connect', () => {
      socket.write(`${webhookHead(url, 'Content-Length: 400')}{"VideoLibraryId": 1, "Status": `)
    })
  })
}

describe('webhook body limit (CMS in a child process)', function () {
  this.timeout(180_000)
  let emu: RunningEmulator
  let cms: RemoteCms

  const webhookUrl = () => `${cms.url}/api${WEBHOOK_PATH}`
  const signedCallback = (status: number) => {
    const raw = JSON.stringify({ Status: status, VideoGuid: '00000000-0000-0000-0000-000000000000', VideoLibraryId: emu.stream.libraryId })
    return fetch(webhookUrl(), {
      body: raw,
      headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) },
      method: 'POST',
    })
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
    const res = await fetch(webhookUrl(), {
      body: raw,
      headers: { 'Content-Type': 'application/json', ...webhookSignatureHeaders(raw, emu.stream.readOnlyKey) },
      method: 'POST',
    })
    expect(res.status).to.equal(413)
    expect(((await res.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).to.match(/exceeds 65536 bytes/)
  })

  it('cuts a body that stalls half-way off at its 10 s deadline (Node alone would keep it 300 s), and still answers callbacks', async () => {
    const stalled = await postStalled(webhookUrl())
    expect(stalled.heldMs, `held by the server; answered: ${stalled.received.slice(0, 300)}`)
      .to.be.at.least(9_000)
      .and.below(40_000)
    // Either the 408 reached the client before the close, or only the close did: never a 2xx.
    expect(stalled.received).not.to.match(/^HTTP\/1\.1 2/)
    expect((await signedCallback(1)).status).to.equal(200)
  })
})
