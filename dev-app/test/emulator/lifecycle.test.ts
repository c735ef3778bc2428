import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEmulator, tusSignature } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'
import { fakeMp4 } from './helpers/fakeMp4.js'
import { startWebhookReceiver } from './helpers/webhookReceiver.js'

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** Creates a video and uploads `file` in one TUS request (creation-with-upload is not needed: POST then PATCH). */
async function uploadVideo(emulator: RunningEmulator, file: Buffer): Promise<string> {
  const { apiBase, libraryId, apiKey, tusEndpoint } = emulator.stream
  const created = await fetch(`${apiBase}/library/${libraryId}/videos`, {
    method: 'POST',
    headers: { AccessKey: apiKey, 'Content-Type': 'application/json' },
    body: '{"title":"t"}',
  })
  const { guid } = (await created.json()) as { guid: string }
  const expire = Math.floor(Date.now() / 1000) + 60
  const metadata = `filetype ${Buffer.from('video/mp4').toString('base64')},title ${Buffer.from('t').toString('base64')}`
  const post = await fetch(tusEndpoint, {
    method: 'POST',
    headers: {
      'Tus-Resumable': '1.0.0',
      'Upload-Length': String(file.length),
      'Upload-Metadata': metadata,
      AuthorizationSignature: tusSignature(libraryId, apiKey, expire, guid),
      AuthorizationExpire: String(expire),
      VideoId: guid,
      LibraryId: String(libraryId),
    },
  })
  expect(post.status).to.equal(201)
  const location = post.headers.get('location') ?? ''
  const patch = await fetch(location, {
    method: 'PATCH',
    headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
    body: new Uint8Array(file),
  })
  expect(patch.status).to.equal(204)
  return guid
}

describe('emulator: lifecycle', () => {
  it('encodes without callbacks while no webhook URL is set, and uses one set at run time', async () => {
    const receiver = await startWebhookReceiver()
    const emulator = await startEmulator({ stream: { encodingStepMs: 5 } })
    try {
      const silent = await uploadVideo(emulator, fakeMp4({ width: 320, height: 240 }))
      expect((await emulator.whenEncoded(silent)).status).to.equal(4)
      expect(receiver.deliveries).to.have.length(0)
      emulator.setWebhookUrl(receiver.url)
      const heard = await uploadVideo(emulator, fakeMp4({ width: 320, height: 240 }))
      await emulator.whenEncoded(heard)
      expect(receiver.deliveries.length).to.be.greaterThan(0)
    } finally {
      await emulator.close()
      await receiver.close()
    }
  })

  it('gives a callback up after its retries and still finishes encoding', async () => {
    const receiver = await startWebhookReceiver()
    receiver.failNext(1000)
    const emulator = await startEmulator({ stream: { encodingStepMs: 5, webhookRetries: 1, webhookUrl: receiver.url } })
    try {
      const guid = await uploadVideo(emulator, fakeMp4({ width: 320, height: 240 }))
      expect((await emulator.whenEncoded(guid)).status).to.equal(4)
      const statuses = receiver.deliveries.map((d) => (JSON.parse(d.raw.toString('utf8')) as { Status: number }).Status)
      expect(statuses).to.deep.equal([0, 0, 1, 1, 2, 2, 4, 4, 3, 3])
    } finally {
      await emulator.close()
      await receiver.close()
    }
  })

  it('stops encoding and removes its temporary folder on close', async () => {
    const emulator = await startEmulator({ stream: { encodingStepMs: 60_000 } })
    await fetch(`${emulator.storage.endpoint}/dev-zone/kept.txt`, { method: 'PUT', headers: { AccessKey: emulator.storage.accessKey }, body: 'x' })
    const stored = emulator.storedFilePath('kept.txt') ?? ''
    expect(existsSync(stored)).to.equal(true)
    const guid = await uploadVideo(emulator, fakeMp4({ width: 320, height: 240 }))
    const waiting = emulator.whenEncoded(guid)
    await emulator.close()
    expect((await waiting).status, 'still Uploaded or Processing').to.be.below(4)
    expect(existsSync(stored)).to.equal(false)
    expect(await fetch(emulator.url).catch(() => 'closed')).to.equal('closed')
  })

  it('keeps a given dataDir on close', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'emulator-data-'))
    try {
      const emulator = await startEmulator({ dataDir })
      await fetch(`${emulator.storage.endpoint}/dev-zone/kept.txt`, { method: 'PUT', headers: { AccessKey: emulator.storage.accessKey }, body: 'x' })
      await emulator.close()
      expect(existsSync(path.join(dataDir, 'storage', 'dev-zone', 'kept.txt'))).to.equal(true)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('keeps videos and checksums across a restart on the same dataDir, and finishes an interrupted encoding', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'emulator-state-'))
    try {
      const first = await startEmulator({ dataDir, stream: { encodingStepMs: 5 } })
      const done = await uploadVideo(first, fakeMp4({ width: 640, height: 360 }))
      await first.whenEncoded(done)
      await fetch(`${first.storage.endpoint}/dev-zone/a.txt`, { method: 'PUT', headers: { AccessKey: first.storage.accessKey }, body: 'a' })
      await first.close()

      const second = await startEmulator({ dataDir, stream: { encodingStepMs: 60_000 } })
      const interrupted = await uploadVideo(second, fakeMp4({ width: 640, height: 360 }))
      const video = await fetch(`${second.stream.apiBase}/library/1001/videos/${done}`, { headers: { AccessKey: second.stream.apiKey } })
      expect(await video.json()).to.include({ status: 4, availableResolutions: '240p,360p', hasMP4Fallback: true })
      expect((await fetch(`${second.stream.cdnUrl}/${done}/playlist.m3u8`)).status).to.equal(200)
      const listing = (await (await fetch(`${second.storage.endpoint}/dev-zone/`, { headers: { AccessKey: second.storage.accessKey } })).json()) as {
        Checksum: string | null
      }[]
      expect(listing[0]?.Checksum).to.match(/^[0-9A-F]{64}$/)
      await second.close()

      const third = await startEmulator({ dataDir, stream: { encodingStepMs: 5 } })
      try {
        expect((await third.whenEncoded(interrupted)).status).to.equal(4)
      } finally {
        await third.close()
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('runs standalone from main.ts, printing its URLs, and stops on SIGTERM', async function () {
    this.timeout(20_000)
    const child = spawn(process.execPath, ['--import', 'tsx', 'dev-app/src/emulator/main.ts'], {
      cwd: repoRoot,
      env: { ...process.env, EMULATOR_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let output = ''
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8')
          const match = /listening on (http:\/\/\S+)/.exec(output)
          if (match?.[1] && output.includes('webhook key')) resolve(match[1])
        })
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)))
      })
      expect(output).to.include(`${url}/storage/dev-zone/`).and.include(`${url}/tusupload`).and.include(`${url}/stream/library/1001/videos`)
      const index = await (await fetch(`${url}/`)).text()
      expect(JSON.parse(index)).to.have.nested.property('stream.tusEndpoint', `${url}/tusupload`)
      expect(index).not.to.include('dev-storage-key').and.not.to.include('dev-stream-key').and.not.to.include('readonly')
      // No fixed key (issue 39 #1): the printed one, random for this start, is the one that works.
      const key = /AccessKey: (\S+)/.exec(output)?.[1]
      expect(key).to.be.a('string').and.not.equal('dev-storage-key')
      expect((await fetch(`${url}/storage/dev-zone/`, { headers: { AccessKey: 'dev-storage-key' } })).status).to.equal(401)
      const res = await fetch(`${url}/storage/dev-zone/`, { headers: { AccessKey: key! } })
      expect(res.status).to.equal(200)
      expect(await res.json()).to.deep.equal([])
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      expect(await exited).to.equal(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
