/**
 * @module cli/checkConfig
 * `backup-daemon check-config --config FILE`: every error with its place (exit 1), or `config OK`
 * after a notice per key written in the original service's spelling where we prefer ours.
 */
import { formatIssue } from '../config/ConfigError.js'
import { loadWithNotices, out } from './output.js'

export async function checkConfig(file: string): Promise<number> {
  // Also the paths on this machine: missing source folders, unwritable data and storage folders.
  const loaded = await loadWithNotices(file, { checkPaths: true })
  if (!loaded) return 1
  for (const notice of loaded.notices) out(`notice: ${formatIssue(file, notice)}`)
  out(`config OK: ${loaded.config.jobs.length} job(s)`)
  return 0
}
