import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { Upload } from 'tus-js-client'
import { signCdnUrl, startEmulator, tusSignature } from '../../src/emulator/index.js'
import { fakeMp4 } from './helpers/fakeMp4.js'
import { startWebhookReceiver } from './helpers/webhookReceiver.js'

describe('emulator: secrets stay out of logs and answers', () => {
  it('never logs a key, a signature or a token through a full session, refusals included', async () => {
    const keys = { storage: 'storage-secret-4711', token: 'token-secret-4712', api: 'api-secret-4713', readOnly: 'readonly-secret-4714' }
    const lines: string[] = []
    const receiver = await startWebhookReceiver()
    const emulator = await startEmulator({
      storage: { accessKey: keys.storage },
      pullZone: { tokenAuthKey: keys.token },
      stream: { apiKey: keys.api, readOnlyKey: keys.readOnly, webhookUrl: receiver.url, encodingStepMs: 5 },
      log: (line) => lines.push(line),
    })
    const bodies: string[] = []
    const record = async (res: Response) => {
      bodies.push(await res.text())
      return res
    }
    try {
      const zone = `${emulator.storage.endpoint}/${emulator.storage.zoneName}`
      const body = Buffer.from('secret-free bytes')
      await record(
        await fetch(`${zone}/a.txt`, {
          method: 'PUT',
          headers: { AccessKey: keys.storage, Checksum: createHash('sha256').update(body).digest('hex').toUpperCase() },
          body,
        }),
      )
      await record(await fetch(`${zone}/a.txt`, { headers: { AccessKey: `${keys.storage}x` } }))
      const signed = signCdnUrl(`${emulator.storage.cdnUrl}/a.txt`, { key: keys.token })
      await record(await fetch(signed))
      await record(await fetch(signed.replace('HS256-', 'HS256-0')))
      const token = new URL(signed).searchParams.get('token') ?? ''

      const created = await record(
        await fetch(`${emulator.stream.apiBase}/library/1001/videos`, {
          method: 'POST',
          headers: { AccessKey: keys.api, 'Content-Type': 'application/json' },
          body: '{"title":"v"}',
        }),
      )
      const { guid } = JSON.parse(bodies.at(-1) ?? '{}') as { guid: string }
      expect(created.status).to.equal(200)
      await record(await fetch(`${emulator.stream.apiBase}/library/1001/videos`, { headers: { AccessKey: 'wrong' } }))
      const expire = Math.floor(Date.now() / 1000) + 60
      const signature = tusSignature(1001, keys.api, expire, guid)
      await new Promise<void>((resolve, reject) => {
        const upload = new Upload(fakeMp4({ width: 320, height: 240 }), {
          endpoint: emulator.stream.tusEndpoint,
          headers: { AuthorizationSignature: signature, AuthorizationExpire: String(expire), VideoId: guid, LibraryId: '1001' },
          metadata: { filetype: 'video/mp4', title: 'v', thumbnailTime: '1500' },
          retryDelays: null,
          onSuccess: () => resolve(),
          onError: reject,
        })
        upload.start()
      })
      await emulator.whenEncoded(guid)
      expect(receiver.deliveries.length).to.be.greaterThan(0)

      const everything = [...lines, ...bodies].join('\n')
      expect(lines.length).to.be.greaterThan(10)
      for (const secret of [...Object.values(keys), token, signature]) expect(everything).not.to.include(secret)
      for (const delivery of receiver.deliveries) expect(delivery.raw.toString()).not.to.include(keys.readOnly)
    } finally {
      await emulator.close()
      await receiver.close()
    }
  })
})
