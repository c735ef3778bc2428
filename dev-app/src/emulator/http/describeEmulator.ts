/**
 * @module emulator/http/describeEmulator
 * `GET /`: what this server emulates and where (URLs only, never keys), for a human with a browser.
 */
import type { UpstreamHandler } from '../context.js'
import { sendJson } from './sendJson.js'

export const describeEmulator: UpstreamHandler = async (req, res, { rawPath }, ctx) => {
  if (rawPath !== '/' || (req.method !== 'GET' && req.method !== 'HEAD')) return false
  const url = ctx.baseUrl()
  const { zoneName, libraryId, tokenAuthKey } = ctx.options
  sendJson(res, 200, {
    name: 'host emulator',
    storage: {
      endpoint: `${url}/storage`,
      zone: zoneName,
      s3Endpoint: `${url}/s3`,
      cdnUrl: `${url}/cdn/${zoneName}`,
      cdnTokenAuthentication: Boolean(tokenAuthKey),
    },
    stream: {
      apiBase: `${url}/stream`,
      libraryId,
      tusEndpoint: `${url}/tusupload`,
      cdnUrl: `${url}/stream-cdn/${libraryId}`,
      webhooks: Boolean(ctx.options.webhookUrl),
      cdnTokenAuthentication: Boolean(ctx.options.streamTokenAuthKey),
    },
    // Every zone and library the host has (the first ones are `storage` and `stream` above).
    zones: [zoneName, ...ctx.options.extraZones.map((zone) => zone.zoneName)],
    libraries: ctx.libraries().map((library) => library.options.libraryId),
    account: { purge: `${url}/purge`, purgeLog: `${url}/purge/log` },
  })
  return true
}
