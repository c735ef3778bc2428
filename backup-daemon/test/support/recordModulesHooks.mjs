/**
 * @module test/support/recordModulesHooks
 * Module customization hooks (they run on Node's loader thread) for `recordModules.mjs`: every resolved
 * URL is appended to the file given at registration. Written synchronously, so the list is complete
 * even when the process ends with process.exit().
 */
import { appendFileSync } from 'node:fs'

let file

export function initialize(data) {
  file = data.file
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context)
  appendFileSync(file, `${result.url}\n`)
  return result
}
