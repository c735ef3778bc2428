/**
 * @module start/restoreSiteConfig
 * The daemon config `restore-site` restores with: the old site's (`--from`), its storages as they are (the
 * snapshots are read from there), but its video library sources pointed at the emulator restore-site itself
 * started on the new data folder, and its state in the new folder. Without this the videos went to whatever
 * library the old config names: the old site's emulator (the live site, when it runs), or nowhere with
 * another `EMULATOR_PORT` (issue 37). Nothing of the old site's daemon state is written.
 */
import { closeSync, constants, openSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { parse, stringify } from 'yaml'

interface StreamTarget {
  apiBase: string
  /** The pull zone of each library the new emulator has, by library id. */
  cdnUrls: Map<number, string>
}

type SourceEntry = { type?: string; [key: string]: unknown }
type JobEntry = { name?: string; sources?: SourceEntry[]; schedule?: unknown; drill?: unknown; [key: string]: unknown }

/** Writes `<work>/backup-daemon.yaml` (0600, never over an existing file or a link); resolves with its path. */
export async function writeRestoreConfig(oldConfig: string, work: string, stream: StreamTarget): Promise<string> {
  const config = parse(await readFile(oldConfig, 'utf8')) as { dataDir?: string; jobs?: JobEntry[]; [key: string]: unknown }
  const cms = config.jobs?.find((job) => job.name === 'cms')
  if (!cms) throw new Error(`${oldConfig} has no job "cms"`)
  for (const source of cms.sources ?? []) {
    if (source.type !== 'host-stream') continue
    const cdnUrl = stream.cdnUrls.get(Number(source.libraryId))
    if (!cdnUrl)
      throw new Error(`source "${String(source.name)}" backs up library ${String(source.libraryId)}, which the restored site's emulator does not have`)
    source.apiBase = stream.apiBase
    source.pullZoneHostname = cdnUrl
    // The old site's mirror stays the old site's.
    delete source.syncPath
  }
  delete cms.schedule
  delete cms.drill
  config.jobs = [cms]
  config.dataDir = path.join(work, 'daemon')
  const file = path.join(work, 'backup-daemon.yaml')
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    writeFileSync(fd, `# Written by restore-site from ${oldConfig}: the videos go to the new data folder's emulator.\n${stringify(config)}`)
  } finally {
    closeSync(fd)
  }
  return file
}
