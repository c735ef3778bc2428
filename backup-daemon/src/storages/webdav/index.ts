/**
 * @module storages/webdav/webdavStorage
 * The `webdav` storage type's config schema (the original service's keys) and factory, wrapped in
 * retries with timeouts.
 */
import { z } from 'zod'
import { withRetries } from '../remote/withRetries.js'
import type { StorageFactory } from '../types.js'
import { WebdavStorage } from './WebdavStorage.js'

export const webdavConfigSchema = z.strictObject({
  type: z.literal('webdav'),
  name: z.string().min(1),
  /** The server's WebDAV URL, e.g. `https://cloud.example.com/remote.php/dav/files/backup/`. */
  url: z
    .url({ protocol: /^https?$/ })
    .refine((u) => !new URL(u).username && !new URL(u).password, 'put the credentials in username and password, not in the url'),
  username: z.string().min(1).optional(),
  password: z.string().optional(),
  /** Folder below `url` (created when missing). */
  path: z.string().default(''),
  /**
   * Seconds a request may go without a byte either way before it fails, naming the storage (`no
   * answer from URL for N s`); a download only until its answer starts (then read at its reader's pace).
   */
  timeout: z.number().positive().max(3600).default(60),
})

/** One `type: webdav` entry after parsing (defaults applied). */
export type WebdavStorageConfig = z.output<typeof webdavConfigSchema>

export const webdavStorage = {
  type: 'webdav',
  configSchema: webdavConfigSchema,
  secretKeys: ['password'],
  create: (config) =>
    withRetries(
      new WebdavStorage({
        name: config.name,
        url: config.url,
        path: config.path,
        username: config.username,
        password: config.password,
        timeoutMs: config.timeout * 1000,
      }),
    ),
} satisfies StorageFactory<WebdavStorageConfig>
