/**
 * @module config/crossChecks
 * Rules that span entries (unique names) or need a parser (cron, time zones). They run on the raw
 * document, independent of the schema, so they are reported even when other keys are wrong too.
 */
import { sourceFactory } from '../sources/all.js'
import { namesScratchDatabase, scratchDatabasePrefix } from '../sources/support/scratchDatabase.js'
import { validCron, validTimezone } from './schema.js'

type Path = (string | number)[]
type Report = (path: Path, message: string) => void

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

function uniqueNames(items: unknown, path: Path, what: string, report: Report): void {
  if (!Array.isArray(items)) return
  const seen = new Set<unknown>()
  items.forEach((item, index) => {
    const name = record(item)?.name
    if (typeof name !== 'string') return
    if (seen.has(name)) report([...path, index, 'name'], `duplicate ${what} name "${name}"`)
    seen.add(name)
  })
}

/**
 * Every string of an entry (nested too) that names a restore drill's scratch database: a drill creates and
 * drops databases with that prefix, so no source or restore target may name one (it could be dropped).
 */
function noScratchDatabases(entry: unknown, path: Path, report: Report): void {
  if (typeof entry === 'string') {
    if (namesScratchDatabase(entry))
      report(path, `names a database starting with "${scratchDatabasePrefix}": restore drills create and drop databases with that prefix; rename it`)
  } else if (Array.isArray(entry)) {
    entry.forEach((item, index) => noScratchDatabases(item, [...path, index], report))
  } else if (entry && typeof entry === 'object') {
    for (const [key, value] of Object.entries(entry)) if (key !== 'name' && key !== 'type') noScratchDatabases(value, [...path, key], report)
  }
}

export function crossChecks(raw: unknown, report: Report): void {
  const databases = record(record(record(raw)?.restore)?.databases)
  for (const [name, target] of Object.entries(databases ?? {})) noScratchDatabases(target, ['restore', 'databases', name], report)
  const server = record(record(raw)?.server)
  // As the original documents it: the UI cannot be served without a listener. Only an explicit
  // `ui.enabled: true` is refused; the default just goes away with the listener.
  if (server?.enabled === false && record(server.ui)?.enabled === true) {
    report(['server', 'ui', 'enabled'], 'server.enabled is false (no HTTP listener): the UI cannot be served; remove ui.enabled or set it to false')
  }
  const jobs = record(raw)?.jobs
  uniqueNames(jobs, ['jobs'], 'job', report)
  if (!Array.isArray(jobs)) return
  jobs.forEach((item, index) => {
    const job = record(item)
    if (!job) return
    const timezone = typeof job.timezone === 'string' ? job.timezone : undefined
    if (timezone && !validTimezone(timezone)) report(['jobs', index, 'timezone'], `unknown time zone "${timezone}"`)
    if (typeof job.schedule === 'string' && job.schedule) {
      const problem = validCron(job.schedule, timezone && validTimezone(timezone) ? timezone : undefined)
      if (problem) report(['jobs', index, 'schedule'], `invalid cron expression: ${problem}`)
    }
    const drill = record(job.drill)
    if (typeof drill?.schedule === 'string' && drill.schedule) {
      const problem = validCron(drill.schedule, timezone && validTimezone(timezone) ? timezone : undefined)
      if (problem) report(['jobs', index, 'drill', 'schedule'], `invalid cron expression: ${problem}`)
    }
    if (typeof drill?.storage === 'string' && Array.isArray(job.storages)) {
      const names = job.storages.map((s) => record(s)?.name).filter((n): n is string => typeof n === 'string')
      if (!names.includes(drill.storage))
        report(['jobs', index, 'drill', 'storage'], `no storage named "${drill.storage}" in this job (storages: ${names.join(', ')})`)
    }
    cmsCheckSources(record(drill?.cms), job.sources, ['jobs', index, 'drill', 'cms'], report)
    uniqueNames(job.sources, ['jobs', index, 'sources'], 'source', report)
    if (Array.isArray(job.sources)) job.sources.forEach((source, at) => noScratchDatabases(source, ['jobs', index, 'sources', at], report))
    uniqueNames(job.storages, ['jobs', index, 'storages'], 'storage', report)
    if (typeof job.defaultStorage === 'string' && Array.isArray(job.storages)) {
      const names = job.storages.map((s) => record(s)?.name).filter((n): n is string => typeof n === 'string')
      if (!names.includes(job.defaultStorage))
        report(['jobs', index, 'defaultStorage'], `no storage named "${job.defaultStorage}" in this job (storages: ${names.join(', ')})`)
    }
  })
}

/** `drill.cms`'s source names: sources of the job, of a kind that can answer what the CMS check asks of it. */
function cmsCheckSources(cms: Record<string, unknown> | undefined, sources: unknown, path: (string | number)[], report: Report): void {
  if (!cms || !Array.isArray(sources)) return
  const byName = new Map(sources.map((s) => record(s)).flatMap((s) => (s && typeof s.name === 'string' ? [[s.name, String(s.type)] as const] : [])))
  const roles = [
    ['database', 'readTables', 'its kind cannot read its restored tables for the CMS check'],
    ['videos', 'restoredIds', 'its restored video ids cannot be listed by the CMS check'],
    ['uploads', undefined, ''],
  ] as const
  for (const [role, needs, why] of roles) {
    const name = cms[role]
    if (typeof name !== 'string') continue
    const type = byName.get(name)
    if (type === undefined) report([...path, role], `no source named "${name}" in this job (sources: ${[...byName.keys()].join(', ')})`)
    else if (needs && !sourceFactory(type)?.drill?.[needs]) report([...path, role], `source "${name}" is a ${type} source: ${why}`)
  }
}
