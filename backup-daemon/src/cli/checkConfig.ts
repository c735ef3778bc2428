/**
 * @module cli/checkConfig
 * `backup-daemon check-config --config FILE`: every error with its place (exit 1), or `config OK`
 * after a notice per key written in the original service's spelling where we prefer ours, and what the
 * repository kinds in use run on (the restic version and what a newer one adds) and what each restic
 * repository answers (opens, not there yet, could not be reached; a refused password fails the check).
 */
import { formatIssue } from '../config/ConfigError.js'
import { describeRepositoryKinds } from '../repository/jobRepository.js'
import { loadWithNotices, out } from './output.js'

export async function checkConfig(file: string): Promise<number> {
  // Also the paths on this machine: missing source folders, unwritable data and storage folders.
  const loaded = await loadWithNotices(file, { checkPaths: true })
  if (!loaded) return 1
  for (const notice of loaded.notices) out(`notice: ${formatIssue(file, notice)}`)
  const notes = await describeRepositoryKinds(loaded.config.jobs, loaded.config.dataDir)
  for (const note of notes) out(note.problem ? `error: ${note.text}` : note.text)
  const problems = notes.filter((note) => note.problem).length
  if (problems > 0) {
    out(`config not OK: ${problems} repository problem(s)`)
    return 1
  }
  out(`config OK: ${loaded.config.jobs.length} job(s)`)
  return 0
}
