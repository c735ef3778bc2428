/**
 * @module config/findConfigFile
 * Which config file a command reads when `--config` is not given. Ours first, then the original
 * service's lookup (so a snapr user's `snapr.yaml` is found where snapr found it):
 *   1. `--config FILE`
 *   2. `$BACKUP_DAEMON_CONFIG`
 *   3. `$SNAPR_CONFIG_FILE`
 *   4. `./snapr.yaml` (the working directory)
 *   5. `~/.config/snapr/snapr.yaml`
 *   6. `~/snapr.yaml`
 *   7. `/etc/snapr/snapr.yaml`
 * A file named by the flag or a variable must exist (a typo must not silently pick another file);
 * the search paths are tried in order and the first that exists wins.
 */
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

export type ConfigLookup = { file: string; source: string } | { error: string }

export interface LookupContext {
  flag?: string
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** `~`; none when the user has no home. */
  home?: string
  exists?: (path: string) => boolean
}

/** The search paths after the flag and the variables, in order. */
export function searchPaths(cwd: string, home: string | undefined): string[] {
  return [join(cwd, 'snapr.yaml'), ...(home ? [join(home, '.config', 'snapr', 'snapr.yaml'), join(home, 'snapr.yaml')] : []), '/etc/snapr/snapr.yaml']
}

export function findConfigFile({
  flag,
  env = process.env,
  cwd = process.cwd(),
  home = env.HOME || safeHome(),
  exists = existsSync,
}: LookupContext = {}): ConfigLookup {
  const named: [string | undefined, string][] = [
    [flag, '--config'],
    [env.BACKUP_DAEMON_CONFIG, '$BACKUP_DAEMON_CONFIG'],
    [env.SNAPR_CONFIG_FILE, '$SNAPR_CONFIG_FILE'],
  ]
  for (const [value, source] of named) {
    if (!value) continue
    // The flag's file may not exist yet for a clear "cannot read" error with the loader's wording.
    if (source !== '--config' && !exists(resolve(cwd, value))) return { error: `${source} names ${value}, which does not exist` }
    return { file: value, source }
  }
  const paths = searchPaths(cwd, home)
  const found = paths.find((path) => exists(path))
  if (found) return { file: found, source: 'search path' }
  return { error: `no config file: pass --config FILE, set $BACKUP_DAEMON_CONFIG or $SNAPR_CONFIG_FILE, or create one of: ${paths.join(', ')}` }
}

function safeHome(): string | undefined {
  try {
    return homedir() || undefined
  } catch {
    return undefined
  }
}
