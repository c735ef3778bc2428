/**
 * @module sources/support/sourceName
 * The schema of a source's `name`: it becomes the source's top folder inside the archive.
 */
import { z } from 'zod'

export const sourceName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-" (it names a folder in the archive)')
