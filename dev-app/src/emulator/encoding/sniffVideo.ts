/**
 * @module emulator/encoding/sniffVideo
 * Decides whether an upload is a video (magic bytes) and, for MP4/QuickTime, reads its frame size
 * from the first video track's `tkhd` box and its duration from `mvhd`, reading box headers only
 * (the `moov` box may sit at the end of a large file; the file is never loaded whole).
 */
import { open } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'

export interface VideoFacts {
  isVideo: boolean
  container: string | undefined
  width: number | undefined
  height: number | undefined
  /** Seconds. */
  duration: number | undefined
}

/** Containers the streaming host accepts, by their leading bytes. */
function containerOf(head: Buffer): string | undefined {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString('latin1')
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') return 'mp4'
  if (head.length >= 8 && ['moov', 'mdat', 'wide', 'free'].includes(ascii(4, 8))) return 'mov'
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return 'matroska'
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'AVI ') return 'avi'
  if (head.length >= 3 && ascii(0, 3) === 'FLV') return 'flv'
  if (head.length >= 4 && ascii(0, 4) === 'OggS') return 'ogg'
  if (head.length >= 4 && head.readUInt32BE(0) === 0x000001ba) return 'mpeg-ps'
  if (head.length >= 189 && head[0] === 0x47 && head[188] === 0x47) return 'mpeg-ts'
  if (head.length >= 16 && head.subarray(0, 16).equals(Buffer.from('3026b2758e66cf11a6d900aa0062ce6c', 'hex'))) return 'asf'
  return undefined
}

/** Boxes whose children hold the track headers. */
const CONTAINERS = new Set(['moov', 'trak'])
/** Never read a `moov` bigger than this into memory (real ones are a few MB at most). */
const MAX_MOOV = 64 * 1024 * 1024

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  const { bytesRead } = await file.read(buffer, 0, length, position)
  return buffer.subarray(0, bytesRead)
}

/** Finds the top-level `moov` box by hopping over box headers. */
async function readMoov(file: FileHandle, size: number): Promise<Buffer | undefined> {
  let position = 0
  while (position + 8 <= size) {
    const header = await readAt(file, position, 16)
    if (header.length < 8) return undefined
    let boxSize = header.readUInt32BE(0)
    const type = header.toString('latin1', 4, 8)
    let headerSize = 8
    if (boxSize === 1) {
      if (header.length < 16) return undefined
      boxSize = Number(header.readBigUInt64BE(8))
      headerSize = 16
    } else if (boxSize === 0) {
      boxSize = size - position
    }
    if (boxSize < headerSize) return undefined
    if (type === 'moov') return boxSize > MAX_MOOV ? undefined : readAt(file, position, boxSize)
    position += boxSize
  }
  return undefined
}

/** Walks boxes inside `buffer`, calling `visit` for each; descends into moov/trak. */
function walk(buffer: Buffer, start: number, end: number, visit: (type: string, body: Buffer) => void): void {
  let position = start
  while (position + 8 <= end) {
    let boxSize = buffer.readUInt32BE(position)
    const type = buffer.toString('latin1', position + 4, position + 8)
    let headerSize = 8
    if (boxSize === 1 && position + 16 <= end) {
      boxSize = Number(buffer.readBigUInt64BE(position + 8))
      headerSize = 16
    } else if (boxSize === 0) {
      boxSize = end - position
    }
    if (boxSize < headerSize || position + boxSize > end) return
    const bodyStart = position + headerSize
    if (CONTAINERS.has(type)) walk(buffer, bodyStart, position + boxSize, visit)
    else visit(type, buffer.subarray(bodyStart, position + boxSize))
    position += boxSize
  }
}

/** Frame size and duration from a `moov` box (the box itself, header included). */
export function readMoovFacts(moov: Buffer): Pick<VideoFacts, 'width' | 'height' | 'duration'> {
  let width: number | undefined
  let height: number | undefined
  let duration: number | undefined
  walk(moov, 0, moov.length, (type, body) => {
    const version = body[0]
    if (type === 'mvhd' && duration === undefined) {
      const timescale = version === 1 ? body.readUInt32BE(20) : body.readUInt32BE(12)
      const units = version === 1 ? Number(body.readBigUInt64BE(24)) : body.readUInt32BE(16)
      if (timescale > 0) duration = units / timescale
    }
    if (type === 'tkhd' && width === undefined) {
      // Width and height are the last 8 bytes (16.16 fixed point), after the 36-byte matrix.
      const offset = version === 1 ? 88 : 76
      if (body.length < offset + 8) return
      const w = body.readUInt32BE(offset) / 65536
      const h = body.readUInt32BE(offset + 4) / 65536
      // Audio tracks have a zero size: keep looking for the video track.
      if (w > 0 && h > 0) {
        width = Math.round(w)
        height = Math.round(h)
      }
    }
  })
  return { width, height, duration }
}

/** Sniffs the file at `filePath`. */
export async function sniffVideo(filePath: string): Promise<VideoFacts> {
  const file = await open(filePath, 'r')
  try {
    const { size } = await file.stat()
    const head = await readAt(file, 0, 512)
    const container = containerOf(head)
    if (!container) return { isVideo: false, container, width: undefined, height: undefined, duration: undefined }
    if (container !== 'mp4' && container !== 'mov') return { isVideo: true, container, width: undefined, height: undefined, duration: undefined }
    const moov = await readMoov(file, size)
    return { isVideo: true, container, ...(moov ? readMoovFacts(moov) : { width: undefined, height: undefined, duration: undefined }) }
  } finally {
    await file.close()
  }
}
