/**
 * @module test/sources/support/streamLibrary
 * A stream library in dev-app's host emulator for the `host-stream` tests: the emulator started with
 * its stream part typed (imported through a specifier in a variable, as `storages/support/hostEmulator`
 * does), videos created and uploaded through the real API, and MP4-looking bytes to upload.
 */
import { randomBytes } from 'node:crypto'
import { hostStreamSourceSchema, type HostStreamSourceConfig } from '../../../src/sources/hostStream/schema.js'

export interface StreamEmulator {
  url: string
  stream: { apiBase: string; cdnUrl: string; libraryId: number; apiKey: string }
  setKeepOriginals(keep: boolean): void
  whenEncoded(guid: string): Promise<{ status: number }>
  close(): Promise<void>
}

export interface StreamEmulatorOptions {
  stream: { libraryId: number; apiKey: string; encodingStepMs?: number; tokenAuthKey?: string }
  log?: (line: string) => void
}

export async function startStreamEmulator(options: StreamEmulatorOptions): Promise<StreamEmulator> {
  const specifier = 'dev-app/emulator'
  const { startEmulator } = (await import(specifier)) as { startEmulator(o: StreamEmulatorOptions & { port: number; host: string }): Promise<StreamEmulator> }
  return startEmulator({ port: 0, host: '127.0.0.1', ...options, stream: { encodingStepMs: 5, ...options.stream } })
}

/** The emulator's stream library as a `host-stream` source named `videos`, parsed as the config loader does. */
export function videosSource(emulator: StreamEmulator, overrides: Partial<HostStreamSourceConfig> = {}): HostStreamSourceConfig {
  return hostStreamSourceSchema.parse({
    type: 'host-stream',
    name: 'videos',
    apiBase: emulator.stream.apiBase,
    libraryId: emulator.stream.libraryId,
    apiKey: emulator.stream.apiKey,
    pullZoneHostname: emulator.stream.cdnUrl,
    ...overrides,
  })
}

/** An `ftyp` box and an `mdat` of random bytes: sniffed as MP4 (the emulator "encodes" it with stand-ins). */
export function mp4Bytes(mediaBytes: number): Buffer {
  const box = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(8 + body.length, 0)
    head.write(type, 4, 'latin1')
    return Buffer.concat([head, body])
  }
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\u0002\0isommp41', 'latin1')), box('mdat', randomBytes(mediaBytes))])
}

/** Calls of one library's API. */
export function libraryClient(emulator: StreamEmulator) {
  const base = `${emulator.stream.apiBase}/library/${emulator.stream.libraryId}`
  const headers = { AccessKey: emulator.stream.apiKey, 'Content-Type': 'application/json' }
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }
  return {
    call,
    /** Creates a video and uploads `bytes` (when given), waiting for its encoding. */
    async video(title: string, bytes?: Buffer, extra: { collectionId?: string; chapters?: unknown[]; caption?: string } = {}): Promise<string> {
      const { guid } = await call<{ guid: string }>('POST', 'videos', { title })
      if (bytes) {
        const res = await fetch(`${base}/videos/${guid}`, { method: 'PUT', headers: { AccessKey: emulator.stream.apiKey }, body: new Uint8Array(bytes) })
        if (!res.ok) throw new Error(`PUT ${guid}: ${res.status}`)
        await emulator.whenEncoded(guid)
      }
      if (extra.collectionId || extra.chapters) await call('POST', `videos/${guid}`, { collectionId: extra.collectionId, chapters: extra.chapters })
      if (extra.caption)
        await call('POST', `videos/${guid}/captions/en`, { srclang: 'en', label: 'English', captionsFile: Buffer.from(extra.caption).toString('base64') })
      return guid
    },
    async cdn(path: string): Promise<Buffer> {
      const res = await fetch(`${emulator.stream.cdnUrl}/${path}`)
      if (!res.ok) throw new Error(`GET ${path}: ${res.status}`)
      return Buffer.from(await res.arrayBuffer())
    },
  }
}
