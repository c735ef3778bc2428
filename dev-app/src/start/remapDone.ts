/**
 * @module start/remapDone
 * The last line `remapRestoredVideos.ts` prints; `restoreSite.ts` treats a run without it as failed
 * (kept apart so the parent need not load the CMS config to know it, as `seedDone.ts`).
 */
export const remapDoneLine = 'remap: documents point at the restored videos'
