/**
 * @module emulator/encoding/planResolutions
 * Which renditions an upload gets: the host's ladder up to the source height, never upscaled, and
 * MP4 fallback files for those up to 720p.
 */

/** The host's encoding ladder (heights). */
export const LADDER = [240, 360, 480, 720, 1080, 1440, 2160] as const
/** MP4 fallback files stop at 720p. */
export const MP4_FALLBACK_MAX = 720

export interface ResolutionPlan {
  /** HLS renditions, ascending, e.g. `['240p', '360p']`. */
  hls: string[]
  /** Heights of `play_{h}p.mp4`, ascending. */
  mp4: number[]
}

/** A source smaller than the lowest rung gets one rendition at its own height. */
export function planResolutions(sourceHeight: number, mp4Fallback: boolean): ResolutionPlan {
  const heights: number[] = LADDER.filter((height) => height <= sourceHeight)
  if (heights.length === 0) heights.push(Math.max(1, Math.round(sourceHeight)))
  return {
    hls: heights.map((height) => `${height}p`),
    mp4: mp4Fallback ? heights.filter((height) => height <= MP4_FALLBACK_MAX) : [],
  }
}
