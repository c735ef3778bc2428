/**
 * @module plugin-openapi/test/conformance/sampleFiles
 * Real files for the generated uploads: a PNG (sharp) and a one-second H.264 MP4 (Debian's `ffmpeg`, which the
 * dev-app's host emulator encodes with too). Without ffmpeg the suite fails naming it.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import sharp from 'sharp'

/** Files the generated uploads send (valid ones; random bytes are generated besides). */
export interface SampleFiles {
  png: Uint8Array
  mp4: Uint8Array
}

export async function sampleFiles(): Promise<SampleFiles> {
  const png = new Uint8Array(
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366ff' } })
      .png()
      .toBuffer(),
  )
  const dir = mkdtempSync(join(tmpdir(), 'conformance-samples-'))
  try {
    const out = join(dir, 'sample.mp4')
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=64x48:rate=10:duration=1',
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      out,
    ]
    const run = spawnSync('ffmpeg', args, { encoding: 'utf8' })
    if (run.error || run.status !== 0) throw new Error(`ffmpeg (Debian package ffmpeg) is needed for the sample video: ${run.error?.message ?? run.stderr}`)
    return { png, mp4: new Uint8Array(readFileSync(out)) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
