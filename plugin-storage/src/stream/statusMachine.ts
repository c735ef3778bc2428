/**
 * @module stream/statusMachine
 * Encoding status of a video document, driven by webhook callbacks that carry no timestamp and may be
 * replayed or arrive out of order. Each status has a rank; a callback never moves a document to a lower
 * rank, and nothing moves it away from `finished`. Applying the same callback twice changes nothing.
 */

/** Webhook `Status` values (they differ from the video object's `status`). */
export const WEBHOOK_STATUS_NAMES: Record<number, string> = {
  0: 'queued',
  1: 'processing',
  2: 'encoding',
  3: 'finished',
  4: 'playable',
  5: 'failed',
  6: 'uploadStarted',
  7: 'uploaded',
  8: 'uploadFailed',
}

/** Every value `hostData.stream.status` can take. */
export const STREAM_STATUSES = [
  'uploading',
  'uploadStarted',
  'uploaded',
  'uploadFailed',
  'queued',
  'processing',
  'encoding',
  'playable',
  'finished',
  'failed',
] as const
export type StreamStatus = (typeof STREAM_STATUSES)[number]

const RANK: Record<StreamStatus, number> = {
  uploading: 0,
  uploadStarted: 1,
  uploadFailed: 2,
  uploaded: 2,
  queued: 3,
  processing: 4,
  encoding: 5,
  playable: 6,
  failed: 7,
  finished: 8,
}

/** The status a document should have after a callback, or undefined when the callback changes nothing. */
export function nextStatus(current: string | null | undefined, webhookStatus: number): StreamStatus | undefined {
  const incoming = WEBHOOK_STATUS_NAMES[webhookStatus] as StreamStatus | undefined
  if (!incoming) return undefined // captions, titles: no encoding state change
  const now = (current && current in RANK ? current : 'uploading') as StreamStatus
  if (now === 'finished') return undefined
  if (RANK[incoming] < RANK[now]) return undefined
  return incoming
}

/** Maps the video object's `status` (stream API) to a document status, for binding and resume. */
export function statusFromVideoObject(status: number): StreamStatus {
  switch (status) {
    case 0:
      return 'uploading'
    case 1:
      return 'uploaded'
    case 2:
      return 'processing'
    case 3:
      return 'encoding'
    case 4:
      return 'finished'
    case 5:
      return 'failed'
    case 6:
      return 'uploadFailed'
    default:
      return 'processing'
  }
}
