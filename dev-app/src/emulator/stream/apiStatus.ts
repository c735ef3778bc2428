/**
 * @module emulator/stream/apiStatus
 * The stream API's status answer (`{success, message, statusCode}`), shared by its routes.
 */
import type { ServerResponse } from 'node:http'
import { sendJson } from '../http/sendJson.js'

export function apiStatus(res: ServerResponse, code: number, message: string): void {
  sendJson(res, code, { success: code < 400, message, statusCode: code })
}
