/**
 * @module startup/describeFailure
 * What the command prints when it dies (issue 24 #12): one line naming the path (or address) and what to
 * do, never a raw stack trace, which tells an operator nothing they can act on. `--debug` or a non-empty
 * `DEBUG` adds the stack below that line.
 */
import { userInfo } from 'node:os'
import { dirname } from 'node:path'

/** The fields Node puts on a failed system call (`fs`, `net`). */
interface SystemError extends Error {
  code?: string
  syscall?: string
  path?: string
  dest?: string
  address?: string
  port?: number
}

const actions: Record<string, string> = {
  access: 'reach',
  chmod: 'change the mode of',
  copyfile: 'copy',
  lstat: 'read',
  mkdir: 'create the folder',
  mkdtemp: 'create a folder in',
  open: 'open',
  opendir: 'read the folder',
  read: 'read',
  readdir: 'read the folder',
  realpath: 'resolve',
  rename: 'rename',
  rmdir: 'remove the folder',
  scandir: 'read the folder',
  stat: 'read',
  unlink: 'remove',
  write: 'write',
}

/** The user the process runs as, for "give it access" advice. */
function currentUser(): string {
  try {
    return userInfo().username
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`
  }
}

/** What to do about a file-system error, by code. Creating or renaming needs write access to the parent. */
function fileAdvice(code: string, path: string, syscall: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM': {
      const user = currentUser()
      const folder = syscall === 'mkdir' || syscall === 'mkdtemp' || syscall === 'rename' || syscall === 'unlink' ? dirname(path) : path
      return `permission denied for user ${user}: give it access (e.g. \`chown -R ${user} ${folder}\`) or point dataDir / logs.directory / the storage path in the config at a folder it owns`
    }
    case 'ENOENT':
      return 'it does not exist: create it, or fix the path in the config'
    case 'EROFS':
      return 'the file system is read-only here (systemd ProtectSystem=strict makes all but ReadWritePaths read-only): use a folder under /var/lib/backup-daemon or add it to ReadWritePaths'
    case 'ENOSPC':
      return 'the disk is full: free space or use another folder'
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder: fix the path in the config'
    case 'EEXIST':
      return 'something already exists there: move it away or fix the path in the config'
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files: raise the limit (LimitNOFILE= in the unit)'
    default:
      return `${code}: fix the path or its permissions`
  }
}

function listenAdvice(code: string, where: string): string | undefined {
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the address is in use by another process; stop it or change server.address`
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: this machine has no such address; change server.address`
    case 'EACCES':
    case 'EPERM':
      return `cannot listen on ${where}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); use a port above 1023 in server.address`
    default:
      return undefined
  }
}

/** One line (ending in a newline) saying what failed and what to do; with `debug`, the stack follows. */
export function describeFailure(err: unknown, { debug }: { debug: boolean }): string {
  const line = `backup-daemon: ${summary(err)}\n`
  if (debug) return err instanceof Error && err.stack ? `${line}${err.stack}\n` : line
  return line
}

function summary(err: unknown): string {
  if (!(err instanceof Error)) return `${String(err)} (run with --debug for details)`
  const { code, syscall, path, dest, address, port } = err as SystemError
  if (code && (syscall === 'listen' || syscall === 'bind')) {
    const where = address !== undefined ? `${address.includes(':') ? `[${address}]` : address}:${port ?? ''}` : 'the configured address'
    const advice = listenAdvice(code, where)
    if (advice) return advice
  }
  if (code && path) {
    const action = (syscall && actions[syscall]) ?? 'use'
    const target = dest ? `${path} -> ${dest}` : path
    return `cannot ${action} ${target}: ${fileAdvice(code, path, syscall)}`
  }
  // Not a system error: the message is all there is; the stack is for bug reports.
  const message = err.message.split('\n')[0] || err.name
  return `${message} (run with --debug for the stack trace)`
}

/** `--debug` on the command line or a non-empty `DEBUG` in the environment. */
export function debugRequested(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): boolean {
  return argv.includes('--debug') || Boolean(env.DEBUG)
}
