/**
 * @module ui/serveUi
 * Placeholder with the final signature: the web UI work replaces the body. The server mounts the
 * returned app at `/` (after `/api/v1`) when `server.ui.enabled` is on.
 */
import { Hono } from 'hono'

export function serveUi(): Hono {
  return new Hono()
}
