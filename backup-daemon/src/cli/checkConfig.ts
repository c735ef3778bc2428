/** @module cli/checkConfig `backup-daemon check-config --config FILE`. */
import { load, out } from './output.js'

export async function checkConfig(file: string): Promise<number> {
  const config = await load(file)
  if (!config) return 1
  out(`config OK: ${config.jobs.length} job(s)`)
  return 0
}

