/**
 * @module server/jobListBody
 * The JSON of `GET /api/v1/jobs`, serialised once per list the engine hands out. The web UI polls this
 * list every few seconds, and the real engine returns the very same frozen array (frozen views inside)
 * while no job changed (`listJobs()` in `engine/jobViews.ts`), so the string is reused until a job's
 * status, schedule or last result moves. A list that is not frozen could change in place (test engines),
 * so it is serialised every time. Used by the route itself: the request passes every middleware as any other.
 */
import type { JobView } from '../engine/types.js'

/** Returns the current `{"jobs":[...]}` text of `listJobs()`; an engine error is thrown to the caller. */
export function jobListBody(listJobs: () => readonly JobView[]): () => string {
  let listed: readonly JobView[] | undefined
  let body = ''
  return () => {
    const jobs = listJobs()
    if (jobs !== listed || !Object.isFrozen(jobs)) {
      body = JSON.stringify({ jobs })
      listed = jobs
    }
    return body
  }
}
