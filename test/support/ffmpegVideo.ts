/**
 * @module test/support/ffmpegVideo
 * A real H.264/AAC MP4 made at test time with Debian's `ffmpeg` (a moving colour test pattern and a
 * tone), so video tests upload something the host emulator encodes and browsers play. Without ffmpeg
 * the caller fails, naming the package to install.
 */
import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'

/** Throws, naming the Debian package, when ffmpeg or ffprobe is missing. */
export function requireFfmpeg(): void {
  for (const bin of ['ffmpeg', 'ffprobe']) {
    try {
      execFileSync(bin, ['-version'], { stdio: 'ignore' })
    } catch {
      throw new Error(`${bin} is not installed: install the Debian package ffmpeg (apt-get install -y --no-install-recommends ffmpeg)`)
    }
  }
}

export interface TestVideoOptions {
  width: number
  height: number
  seconds: number
  /** Video bit rate, e.g. `8M`: a higher rate makes a bigger file (a longer upload to watch). @default '1M' */
  bitrate?: string
}

/** Writes the MP4 to `file` and returns its size in bytes. */
export function makeTestVideo(file: string, { width, height, seconds, bitrate = '1M' }: TestVideoOptions): number {
  requireFfmpeg()
  execFileSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=25:duration=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', bitrate, '-maxrate', bitrate, '-bufsize', bitrate, '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-shortest', '-movflags', '+faststart', file],
  ])
  return statSync(file).size
}
