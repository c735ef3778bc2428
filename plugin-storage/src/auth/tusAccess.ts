/**
 * @module auth/tusAccess
 * Who may upload a video: `stream.tus.access` when set (current generation: it replaces the default),
 * otherwise the CMS check (signed in, create or update on the collection); then `tus.checkAccess`
 * (earlier generation: it can only narrow). Shared by tus-auth and the 4.x upload instructions.
 */
import type { PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'
import type { ResolvedStream } from '../options/resolveOptions.js'
import { assertClientUploadAccess } from '../payload/compat.js'
import type { TusAuthRequest } from '../types.js'

/** `stream.tus.access` (or the CMS check) then `checkAccess`; a 403 HttpError when either refuses. */
export async function checkTusAccess(stream: ResolvedStream | undefined, req: PayloadRequest, body: TusAuthRequest): Promise<void> {
  const tus = stream?.tus
  let allowed: boolean
  if (tus?.access) {
    allowed = await tus.access({ collectionSlug: body.collection, req })
  } else {
    allowed = await assertClientUploadAccess({ collectionSlug: body.collection, req }).then(
      () => true,
      () => false,
    )
  }
  if (allowed && tus?.checkAccess) allowed = await tus.checkAccess(req, body)
  if (!allowed) throw new HttpError(403, 'You are not allowed to upload to this collection.')
}
