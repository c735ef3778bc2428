/**
 * The emulator encodes for real (ffmpeg): a video made here with ffmpeg, uploaded over TUS, comes back
 * as an HLS master playlist whose variant playlists and segments exist and decode, MP4 fallback files
 * that are H.264 at their rendition height, and a thumbnail that is a frame of the video (not a flat
 * placeholder). Needs Debian's `ffmpeg` package: without it this test fails and says so.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { Upload } from 'tus-js-client'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'

const LIBRARY_ID = 4242
const API_KEY = 'real-encoding-key'

function requireFfmpeg(): void {
  for (const bin of ['ffmpeg', 'ffprobe']) {
    try {
      execFileSync(bin, ['-version'], { stdio: 'ignore' })
    } catch {
      throw new Error(`${bin} is not installed: install the Debian package ffmpeg (apt-get install -y --no-install-recommends ffmpeg)`)
    }
  }
}

/** ffprobe's first video stream of a file (or URL). */
function probe(input: string): { codec_name: string; width: number; height: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', input])
  return (JSON.parse(out.toString()) as { streams: Array<{ codec_name: string; width: number; height: number }> }).streams[0]!
}

describe('emulator: real encoding with ffmpeg (HLS, MP4 fallback, thumbnail frame)', function () {
  this.timeout(120_000)
  let emulator: RunningEmulator
  let work: string
  let source: Buffer

  before(async () => {
    requireFfmpeg()
    work = mkdtempSync(path.join(tmpdir(), 'emulator-real-encoding-'))
    const file = path.join(work, 'source.mp4')
    // 5 s of a moving test pattern with a tone, 640×360: renditions 240p and 360p.
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=5'],
      ...[
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:duration=5',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-shortest',
        file,
      ],
    ])
    source = readFileSync(file)
    emulator = await startEmulator({ stream: { libraryId: LIBRARY_ID, apiKey: API_KEY, encodingStepMs: 10 } })
  })
  after(async () => {
    await emulator?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('serves variant playlists and segments that decode, MP4 files at each height and a thumbnail frame', async () => {
    const created = await fetch(`${emulator.stream.apiBase}/library/${LIBRARY_ID}/videos`, {
      method: 'POST',
      headers: { AccessKey: API_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Real', thumbnailTime: 2000 }),
    })
    const guid = ((await created.json()) as { guid: string }).guid
    const expire = Math.floor(Date.now() / 1000) + 3600
    await new Promise<void>((resolve, reject) => {
      new Upload(source, {
        endpoint: emulator.stream.tusEndpoint,
        retryDelays: null,
        headers: {
          AuthorizationSignature: createHash('sha256').update(`${LIBRARY_ID}${API_KEY}${expire}${guid}`).digest('hex'),
          AuthorizationExpire: String(expire),
          VideoId: guid,
          LibraryId: String(LIBRARY_ID),
        },
        metadata: { filetype: 'video/mp4', title: 'Real' },
        onSuccess: () => resolve(),
        onError: reject,
      }).start()
    })
    const video = await emulator.whenEncoded(guid)
    expect(video.status).to.equal(4)
    expect(video.availableResolutions).to.deep.equal(['240p', '360p'])

    const base = `${emulator.stream.cdnUrl}/${guid}`
    const master = await (await fetch(`${base}/playlist.m3u8`)).text()
    const variants = master.split('\n').filter((line) => line.endsWith('/video.m3u8'))
    expect(variants).to.deep.equal(['240p/video.m3u8', '360p/video.m3u8'])
    for (const variant of variants) {
      const res = await fetch(`${base}/${variant}`)
      expect(res.status, variant).to.equal(200)
      const playlist = await res.text()
      expect(playlist).to.contain('#EXT-X-ENDLIST')
      const segments = playlist.split('\n').filter((line) => line.endsWith('.ts'))
      // 5 s cut into 2 s segments.
      expect(segments, variant).to.have.length(3)
      const folder = variant.split('/')[0]
      const segment = await fetch(`${base}/${folder}/${segments[0]}`)
      expect(segment.status).to.equal(200)
      expect(segment.headers.get('content-type')).to.equal('video/mp2t')
      const segmentFile = path.join(work, `${folder}-first.ts`)
      writeFileSync(segmentFile, Buffer.from(await segment.arrayBuffer()))
      expect(probe(segmentFile)).to.include({ codec_name: 'h264', height: Number.parseInt(folder!, 10) })
    }
    expect((await fetch(`${base}/240p/segment_999.ts`)).status).to.equal(404)

    for (const height of [240, 360]) {
      const mp4 = path.join(work, `play_${height}p.mp4`)
      writeFileSync(mp4, Buffer.from(await (await fetch(`${base}/play_${height}p.mp4`)).arrayBuffer()))
      expect(probe(mp4)).to.include({ codec_name: 'h264', height })
    }

    const thumbnail = await fetch(`${base}/thumbnail.jpg`)
    expect(thumbnail.headers.get('content-type')).to.equal('image/jpeg')
    const image = sharp(Buffer.from(await thumbnail.arrayBuffer()))
    expect(await image.metadata()).to.include({ width: 640, height: 360 })
    // testsrc2 is a colourful pattern: a flat placeholder has (almost) no spread in any channel.
    const stats = await image.stats()
    expect(Math.max(...stats.channels.map((c) => c.stdev))).to.be.greaterThan(30)
  })
})
