/**
 * @module emulator/encoding/ffmpeg
 * The emulator's real encoder: Debian's `ffmpeg`/`ffprobe` (or `FFMPEG_PATH`/`FFPROBE_PATH`) turn an
 * upload into what the host serves: per rendition an H.264/AAC MP4 (kept as `play_{h}p.mp4` when the
 * library has MP4 fallback), an HLS variant playlist with MPEG-TS segments cut from it (no second
 * encode), and a JPEG thumbnail taken from a frame of the video.
 */
import { spawn } from 'node:child_process'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'

const ffmpegBin = () => process.env.FFMPEG_PATH || 'ffmpeg'
const ffprobeBin = () => process.env.FFPROBE_PATH || 'ffprobe'

/** Segment length of the HLS renditions, in seconds (the host uses a few seconds too). */
export const SEGMENT_SECONDS = 2

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

function run(bin: string, args: string[], signal?: AbortSignal, onStdout?: (chunk: string) => void): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], signal })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      onStdout?.(chunk.toString())
    })
    // Only the tail matters for an error message; ffmpeg can be chatty.
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

let available: Promise<boolean> | undefined
/** Whether ffmpeg and ffprobe run here (checked once per process). */
export function ffmpegAvailable(): Promise<boolean> {
  available ??= Promise.all([run(ffmpegBin(), ['-version']), run(ffprobeBin(), ['-version'])]).then(
    (results) => results.every((r) => r.code === 0),
    () => false,
  )
  return available
}

export interface ProbedVideo {
  width: number
  height: number
  /** Seconds. */
  duration: number
  hasAudio: boolean
}

/** Reads the first video stream; undefined when ffprobe finds no decodable video in the file. */
export async function probeVideo(input: string, signal?: AbortSignal): Promise<ProbedVideo | undefined> {
  const result = await run(ffprobeBin(), ['-v', 'error', '-show_entries', 'stream=codec_type,width,height:format=duration', '-of', 'json', input], signal)
  if (result.code !== 0) return undefined
  const parsed = JSON.parse(result.stdout) as { streams?: Array<{ codec_type?: string; width?: number; height?: number }>; format?: { duration?: string } }
  const video = parsed.streams?.find((s) => s.codec_type === 'video' && (s.width ?? 0) > 0 && (s.height ?? 0) > 0)
  const duration = Number(parsed.format?.duration)
  if (!video || !(duration > 0)) return undefined
  return { width: video.width!, height: video.height!, duration, hasAudio: Boolean(parsed.streams?.some((s) => s.codec_type === 'audio')) }
}

async function ffmpeg(args: string[], signal?: AbortSignal, onStdout?: (chunk: string) => void): Promise<void> {
  const result = await run(ffmpegBin(), ['-hide_banner', '-nostdin', '-y', '-loglevel', 'error', ...args], signal, onStdout)
  if (result.code !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`)
}

/** A frame at `atSeconds` (clamped into the video) as a JPEG of at most 720 lines. */
export async function writeThumbnail(input: string, output: string, atSeconds: number, video: ProbedVideo, signal?: AbortSignal): Promise<void> {
  // The last frames may not decode at exactly `duration`: stay a little inside.
  const at = Math.max(0, Math.min(atSeconds, video.duration - 0.1))
  await ffmpeg(['-ss', at.toFixed(3), '-i', input, '-frames:v', '1', '-vf', "scale=-2:'min(720,ih)'", '-q:v', '4', output], signal)
}

export interface RenditionArgs {
  input: string
  /** The video's folder; the rendition goes to `{dir}/{height}p/` (+ `{dir}/play_{height}p.mp4`). */
  dir: string
  height: number
  video: ProbedVideo
  keepMp4: boolean
  signal?: AbortSignal
  /** 0..1 of this rendition's encode, as ffmpeg reports it. */
  onProgress?: (fraction: number) => void
}

/** Encodes one rendition: MP4 first (fast start), then HLS segments copied out of it. */
export async function encodeRendition({ input, dir, height, video, keepMp4, signal, onProgress }: RenditionArgs): Promise<void> {
  const variantDir = path.join(dir, `${height}p`)
  await mkdir(variantDir, { recursive: true })
  const mp4 = path.join(dir, `.play_${height}p.mp4.partial`)
  // A keyframe every segment, so every segment starts cleanly and seeking lands on a segment boundary.
  const gop = ['-force_key_frames', `expr:gte(t,n_forced*${SEGMENT_SECONDS})`]
  const audio = video.hasAudio ? ['-c:a', 'aac', '-b:a', '96k', '-ac', '2'] : ['-an']
  await ffmpeg(
    [
      ...['-i', input, '-map', '0:v:0', ...(video.hasAudio ? ['-map', '0:a:0'] : [])],
      ...['-vf', `scale=-2:${height}`, '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'main', '-pix_fmt', 'yuv420p', ...gop],
      ...audio,
      ...['-movflags', '+faststart', '-f', 'mp4', '-progress', 'pipe:1', '-nostats', mp4],
    ],
    signal,
    (chunk) => {
      const match = /out_time_us=(\d+)/.exec(chunk)
      if (match && onProgress) onProgress(Math.min(1, Number(match[1]) / 1e6 / video.duration))
    },
  )
  await ffmpeg(
    [
      ...['-i', mp4, '-c', 'copy', '-f', 'hls', '-hls_time', String(SEGMENT_SECONDS), '-hls_playlist_type', 'vod'],
      ...['-hls_segment_filename', path.join(variantDir, 'segment_%03d.ts'), path.join(variantDir, 'video.m3u8')],
    ],
    signal,
  )
  if (keepMp4) await rename(mp4, path.join(dir, `play_${height}p.mp4`))
  else await rm(mp4, { force: true })
}
