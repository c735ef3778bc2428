/**
 * @module endpoints/readJsonObject
 * The JSON object body of a request, or a 400 in the spec's error shape.
 */
import type { PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'

/** Parses a JSON body; 400 when it is not a JSON object. */
export async function readJsonObject(req: PayloadRequest): Promise<Record<string, unknown>> {
  let body: unknown
  try {
    body = req.json ? await req.json() : undefined
  } catch {
    throw new HttpError(400, 'The request body must be JSON.')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'The request body must be a JSON object.')
  return body as Record<string, unknown>
}
