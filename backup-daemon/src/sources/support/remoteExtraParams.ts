/**
 * @module sources/support/remoteExtraParams
 * `extraParams` of the remote sources (`s3`, `host`): `workers`, the number of parallel downloads
 * (default 10; at most 30: more only piles up requests a zone or bucket throttles). A number or a
 * numeric string (the original's map holds strings); a larger number is lowered to 30.
 */
import { z } from 'zod'

export const maxWorkers = 30

export const remoteExtraParams = z
  .strictObject({
    workers: z.coerce
      .number()
      .int('workers must be a whole number')
      .min(1, 'workers must be at least 1')
      .transform((n) => Math.min(n, maxWorkers))
      .default(10),
  })
  .default({ workers: 10 })
