/**
 * @module test/support/webmVideo
 * A real, playable and seekable video for browser tests, with no encoder installed on the machine:
 * Chromium's WebCodecs encodes canvas frames to VP8 in the page, and `muxWebm` writes them as a WebM file
 * with a duration and a cue per keyframe (one cluster per second), so the browser can seek with range
 * requests. EBML sizes and cue/uint values are written at a fixed 8 bytes, so offsets are computed once.
 */
import type { Page } from 'playwright-core'

export interface EncodedFrame {
  /** Microseconds. */
  timestamp: number
  key: boolean
  data: Buffer
}

const size8 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(BigInt(n))
  b[0] = 0x01 // 8-byte vint marker (sizes stay far below 2^56)
  return b
}
const uint8 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeBigUInt64BE(BigInt(n))
  return b
}
const float64 = (n: number) => {
  const b = Buffer.alloc(8)
  b.writeDoubleBE(n)
  return b
}
const el = (id: number[], ...payload: Buffer[]) => {
  const body = Buffer.concat(payload)
  return Buffer.concat([Buffer.from(id), size8(body.length), body])
}
const str = (s: string) => Buffer.from(s, 'utf8')

/** Muxes VP8 frames (the first one a keyframe) into a WebM file. */
export function muxWebm({ frames, height, width }: { frames: EncodedFrame[]; width: number; height: number }): Buffer {
  const ms = (us: number) => Math.round(us / 1000)
  const last = frames[frames.length - 1]!
  const durationMs = ms(last.timestamp) + ms(frames.length > 1 ? last.timestamp - frames[frames.length - 2]!.timestamp : 40_000)
  const header = el(
    [0x1a, 0x45, 0xdf, 0xa3],
    el([0x42, 0x86], uint8(1)),
    el([0x42, 0xf7], uint8(1)),
    el([0x42, 0xf2], uint8(4)),
    el([0x42, 0xf3], uint8(8)),
    el([0x42, 0x82], str('webm')),
    el([0x42, 0x87], uint8(2)),
    el([0x42, 0x85], uint8(2)),
  )
  const info = el(
    [0x15, 0x49, 0xa9, 0x66],
    el([0x2a, 0xd7, 0xb1], uint8(1_000_000)),
    el([0x44, 0x89], float64(durationMs)),
    el([0x4d, 0x80], str('media-admin-e2e')),
    el([0x57, 0x41], str('media-admin-e2e')),
  )
  const tracks = el(
    [0x16, 0x54, 0xae, 0x6b],
    el(
      [0xae],
      el([0xd7], uint8(1)),
      el([0x73, 0xc5], uint8(1)),
      el([0x83], uint8(1)),
      el([0x86], str('V_VP8')),
      el([0x9c], uint8(0)),
      el([0xe0], el([0xb0], uint8(width)), el([0xba], uint8(height))),
    ),
  )
  // Clusters: a new one at every keyframe.
  const clusters: Array<{ time: number; bytes: Buffer }> = []
  let blocks: Buffer[] = []
  let clusterTime = 0
  const close = () => {
    if (blocks.length) clusters.push({ bytes: el([0x1f, 0x43, 0xb6, 0x75], el([0xe7], uint8(clusterTime)), ...blocks), time: clusterTime })
    blocks = []
  }
  for (const frame of frames) {
    if (frame.key) {
      close()
      clusterTime = ms(frame.timestamp)
    }
    const head = Buffer.alloc(4)
    head[0] = 0x81 // track 1
    head.writeInt16BE(ms(frame.timestamp) - clusterTime, 1)
    head[3] = frame.key ? 0x80 : 0
    blocks.push(el([0xa3], head, frame.data))
  }
  close()
  // Cues sit before the clusters (read with the header); their size does not depend on the positions.
  const cues = (positions: number[]) =>
    el(
      [0x1c, 0x53, 0xbb, 0x6b],
      ...clusters.map((c, i) => el([0xbb], el([0xb3], uint8(c.time)), el([0xb7], el([0xf7], uint8(1)), el([0xf1], uint8(positions[i]!))))),
    )
  const firstCluster = info.length + tracks.length + cues(clusters.map(() => 0)).length
  const positions: number[] = []
  let offset = firstCluster
  for (const c of clusters) {
    positions.push(offset)
    offset += c.bytes.length
  }
  const segment = el([0x18, 0x53, 0x80, 0x67], info, tracks, cues(positions), ...clusters.map((c) => c.bytes))
  return Buffer.concat([header, segment])
}

const ENCODE_IN_PAGE = `async ({ width, height, seconds }) => {
  const fps = 25
  const canvas = new OffscreenCanvas(width, height)
  const ctx = canvas.getContext('2d')
  const out = []
  let failure
  const encoder = new VideoEncoder({
    error: (e) => { failure = e },
    output: (chunk) => {
      const bytes = new Uint8Array(chunk.byteLength)
      chunk.copyTo(bytes)
      let binary = ''
      for (const b of bytes) binary += String.fromCharCode(b)
      out.push({ data: btoa(binary), key: chunk.type === 'key', timestamp: chunk.timestamp })
    },
  })
  encoder.configure({ bitrate: 400000, codec: 'vp8', framerate: fps, height, width })
  for (let i = 0; i < seconds * fps; i++) {
    ctx.fillStyle = 'hsl(' + ((i * 5) % 360) + ' 70% 45%)'
    ctx.fillRect(0, 0, width, height)
    ctx.fillStyle = '#fff'
    ctx.font = '64px sans-serif'
    ctx.fillText((i / fps).toFixed(1) + ' s', 40, 110)
    const frame = new VideoFrame(canvas, { duration: 1e6 / fps, timestamp: Math.round((i * 1e6) / fps) })
    encoder.encode(frame, { keyFrame: i % fps === 0 })
    frame.close()
  }
  await encoder.flush()
  if (failure) throw failure
  return out
}`

/** Encodes `seconds` of animated 320×180 frames at 25 fps to VP8 in the page (WebCodecs), a keyframe per second. */
export async function encodeVideoInPage(page: Page, seconds: number): Promise<{ frames: EncodedFrame[]; width: number; height: number }> {
  const width = 320
  const height = 180
  // A string, not a function: tsx's name-keeping helpers (`__name`) do not exist in the page.
  type Chunk = { timestamp: number; key: boolean; data: string }
  const encoded = (await page.evaluate(`(${ENCODE_IN_PAGE})(${JSON.stringify({ height, seconds, width })})`)) as Chunk[]
  return { frames: encoded.map((f) => ({ data: Buffer.from(f.data, 'base64'), key: f.key, timestamp: f.timestamp })), height, width }
}
