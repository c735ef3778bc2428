/**
 * @module emulator/s3/verifyPresignedRequest
 * AWS Signature V4 query-string (presigned URL) verification, as S3 does it: the signature is
 * recomputed with `@smithy/signature-v4` (configured like the S3 presigner: no double path escaping,
 * `UNSIGNED-PAYLOAD`) from the request as received, then compared in constant time.
 */
import { Sha256 } from '@aws-crypto/sha256-js'
import { SignatureV4 } from '@smithy/signature-v4'
import type { IncomingMessage } from 'node:http'
import { safeEqual } from '../auth/safeEqual.js'

export interface S3Refusal {
  status: number
  code: string
  message: string
}

export interface VerifyPresignedArgs {
  req: IncomingMessage
  /** Path as received (still percent-encoded), e.g. `/s3/dev-zone/uploads/a%20b.jpg`. */
  rawPath: string
  query: URLSearchParams
  accessKeyId: string
  secretAccessKey: string
  /** When set, the credential scope's region must be this one. */
  region?: string
  now?: Date
}

/** SigV4 caps presigned URLs at one week. */
const MAX_EXPIRES = 604_800
/** S3 tolerates 15 minutes of clock skew for a date in the future. */
const MAX_SKEW_MS = 15 * 60 * 1000
/** Parameters the presigner adds itself; everything else in the query is part of the signed request. */
const SIGNING_PARAMS = ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature']

function refuse(status: number, code: string, message: string): S3Refusal {
  return { status, code, message }
}

function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value)
  if (!m) return undefined
  const [, y, mo, d, h, mi, s] = m
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)))
  return Number.isNaN(date.getTime()) ? undefined : date
}

/** Resolves to `undefined` when the request is validly presigned, else to the S3 error to answer. */
export async function verifyPresignedRequest({
  req,
  rawPath,
  query,
  accessKeyId,
  secretAccessKey,
  region,
  now = new Date(),
}: VerifyPresignedArgs): Promise<S3Refusal | undefined> {
  const algorithm = query.get('X-Amz-Algorithm')
  const credential = query.get('X-Amz-Credential')
  const amzDate = query.get('X-Amz-Date')
  const expires = query.get('X-Amz-Expires')
  const signedHeaders = query.get('X-Amz-SignedHeaders')
  const signature = query.get('X-Amz-Signature')
  if (!algorithm && !signature) return refuse(403, 'AccessDenied', 'Access Denied')
  if (algorithm !== 'AWS4-HMAC-SHA256' || !credential || !amzDate || !expires || !signedHeaders || !signature) {
    return refuse(
      400,
      'AuthorizationQueryParametersError',
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    )
  }
  const scope = credential.split('/')
  const [keyId, shortDate, scopeRegion, service, terminator] = scope
  if (scope.length !== 5 || service !== 's3' || terminator !== 'aws4_request' || !scopeRegion) {
    return refuse(400, 'AuthorizationQueryParametersError', 'Error parsing the X-Amz-Credential parameter.')
  }
  if (keyId !== accessKeyId) return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.')
  if (region !== undefined && scopeRegion !== region) {
    return refuse(
      400,
      'AuthorizationQueryParametersError',
      `Error parsing the X-Amz-Credential parameter; the region '${scopeRegion}' is wrong; expecting '${region}'`,
    )
  }
  const signingDate = parseAmzDate(amzDate)
  const expiresIn = Number(expires)
  if (!signingDate || shortDate !== amzDate.slice(0, 8)) return refuse(400, 'AuthorizationQueryParametersError', 'Invalid X-Amz-Date.')
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES) {
    return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be between 1 and 604800 seconds.')
  }
  if (now.getTime() > signingDate.getTime() + expiresIn * 1000) return refuse(403, 'AccessDenied', 'Request has expired')
  if (signingDate.getTime() - now.getTime() > MAX_SKEW_MS) {
    return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.')
  }
  const signedNames = signedHeaders.split(';')
  if (!signedNames.includes('host')) return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-SignedHeaders must include host.')

  // Rebuild the request exactly as the signer saw it: the signed headers with the values received.
  const headers: Record<string, string> = {}
  for (const name of signedNames) {
    const value = req.headers[name]
    if (value === undefined) return refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.')
    headers[name] = Array.isArray(value) ? value.join(',') : value
  }
  const signedQuery: Record<string, string> = {}
  for (const [key, value] of query) {
    if (!SIGNING_PARAMS.includes(key)) signedQuery[key] = value
  }
  // The payload hash of a presigned S3 request is UNSIGNED-PAYLOAD, carried in the query when present.
  // It goes back in as a header under the very name it had, so that the signer hoists it to the same key.
  const shaKey = Object.keys(signedQuery).find((key) => key.toLowerCase() === 'x-amz-content-sha256')
  const contentSha = shaKey === undefined ? undefined : signedQuery[shaKey]
  if (shaKey !== undefined) delete signedQuery[shaKey]
  headers[shaKey ?? 'x-amz-content-sha256'] = contentSha ?? 'UNSIGNED-PAYLOAD'
  const hostHeader = headers.host ?? ''
  const [hostname = '', port] = hostHeader.split(':')
  const signer = new SignatureV4({
    service: 's3',
    region: scopeRegion,
    credentials: { accessKeyId, secretAccessKey },
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  })
  const presigned = await signer.presign(
    { method: req.method ?? 'GET', protocol: 'http:', hostname, port: port ? Number(port) : undefined, path: rawPath, query: signedQuery, headers },
    {
      signingDate,
      expiresIn,
      signableHeaders: new Set(signedNames),
      // Present only to feed the payload hash; hoisted back into the query when it came from there.
      unhoistableHeaders: contentSha === undefined ? new Set(['x-amz-content-sha256']) : new Set(),
      unsignableHeaders: contentSha === undefined && !signedNames.includes('x-amz-content-sha256') ? new Set(['x-amz-content-sha256']) : new Set(),
    },
  )
  const expected = presigned.query?.['X-Amz-Signature']
  const expectedSignedHeaders = presigned.query?.['X-Amz-SignedHeaders']
  if (typeof expected !== 'string' || expectedSignedHeaders !== signedHeaders || !safeEqual(signature, expected)) {
    return refuse(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    )
  }
  return undefined
}
