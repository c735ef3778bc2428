/**
 * @module start/cmsCommand
 * The command line that serves the CMS: `next start` of the production build, on the dev-app's port and
 * listening address (Next.js listens on every interface unless told otherwise).
 */
import path from 'node:path'

export interface CmsCommandInput {
  repoRoot: string
  port: number
  bindAddress: string
}

/** Arguments for `node` (the Next.js CLI script first). */
export function cmsStartArgs({ bindAddress, port, repoRoot }: CmsCommandInput): string[] {
  return [path.join(repoRoot, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-H', bindAddress, '-p', String(port)]
}
