/**
 * @module fields/hostDataField
 * `hostData.stream` on every stream collection: what players need (video id, library id, HLS playlist,
 * thumbnail, MP4 fallback URLs) and the encoding status kept current by the webhook. Only the plugin
 * writes these (field access denies API writes); `videoToken` is the one writable field: it is
 * verified by the bind hook and never stored (always saved as null).
 * Editors see the stored values through the `summary` ui field (client/HostDataSummary.tsx: a status
 * badge, resolutions, size, links to copy), not as a column of disabled inputs: the data fields are
 * hidden in the admin (they stay in the API, the database and the list view's column picker).
 */
import type { Field, FieldAccess, FieldHook } from 'payload'

import { CLIENT_PATH } from '../admin/clientPath.js'
import { STREAM_STATUSES } from '../stream/statusMachine.js'
import { renditionFile, type StreamUrls } from '../stream/streamUrls.js'
import { I18N_NAMESPACE } from '../translations/index.js'

/** API writes are refused; the plugin writes through its hooks and with `overrideAccess`. */
const pluginOnly: { create: FieldAccess; update: FieldAccess } = { create: () => false, update: () => false }

export interface HostDataFieldOptions {
  /** Admin component rendered for `videoToken` (the plugin passes its TUS upload field). */
  tusField?: { clientProps: Record<string, unknown>; path: string }
  /**
   * The URLs readers see, computed when the document is read; documents store the video id and the
   * rendition file names only, so a moved pull zone, library or host serves the right URLs at once.
   * Without it (a disabled plugin) the stored values are returned as they are.
   */
  urls?: (videoId: string) => StreamUrls
  /** Replace or extend the default sub-fields of `hostData.stream`. */
  overrides?: (defaultFields: Field[]) => Field[]
}

/** Admin options of a data field: shown only through the summary. */
const dataAdmin = { hidden: true, readOnly: true }

type StreamSibling = { videoId?: unknown }
/** The video id of the document a nested field belongs to. */
const videoIdOf = (data: unknown): string | undefined => {
  const id = (data as { hostData?: { stream?: StreamSibling } } | undefined)?.hostData?.stream?.videoId
  return typeof id === 'string' && id ? id : undefined
}

/** The `hostData` group field of a stream collection. */
export function HostDataField({ overrides, tusField, urls }: HostDataFieldOptions = {}): Field {
  type Hooks = { afterRead: FieldHook[]; beforeChange: FieldHook[] }
  /** Stored as nothing; read as the URL the options in force give the sibling `videoId`. */
  const atRead = (url: 'playlist' | 'thumbnail'): Hooks | undefined =>
    urls && {
      afterRead: [
        ({ siblingData, value }) => {
          const videoId = (siblingData as StreamSibling | undefined)?.videoId
          return typeof videoId === 'string' && videoId ? urls(videoId)[url] : value
        },
      ],
      beforeChange: [() => null],
    }
  /** Stored as the file name; read as its URL under the document's video. */
  const renditionHooks: Hooks | undefined = urls
    ? {
        afterRead: [
          ({ data, value }) => {
            const videoId = videoIdOf(data)
            return videoId && typeof value === 'string' && value ? urls(videoId).rendition(value) : value
          },
        ],
        beforeChange: [({ value }) => (typeof value === 'string' && value ? renditionFile(value) : value)],
      }
    : undefined
  const streamFields: Field[] = [
    { name: 'summary', type: 'ui', admin: { components: { Field: { path: `${CLIENT_PATH}#HostDataSummary` } } } },
    { name: 'videoId', type: 'text', access: pluginOnly, admin: dataAdmin, index: true },
    { name: 'libraryId', type: 'number', access: pluginOnly, admin: dataAdmin },
    {
      name: 'videoToken',
      type: 'text',
      admin: tusField
        ? { components: { Field: tusField } }
        : { description: 'Set by the upload field after a TUS upload; checked on save, never stored.', hidden: true },
      hooks: { afterRead: [() => undefined] },
    },
    {
      name: 'status',
      type: 'select',
      access: pluginOnly,
      admin: dataAdmin,
      options: STREAM_STATUSES.map((value) => ({ label: value, value })),
    },
    { name: 'encodeProgress', type: 'number', access: pluginOnly, admin: dataAdmin, max: 100, min: 0 },
    { name: 'playlistUrl', type: 'text', access: pluginOnly, admin: dataAdmin, hooks: atRead('playlist') },
    { name: 'thumbnailUrl', type: 'text', access: pluginOnly, admin: dataAdmin, hooks: atRead('thumbnail') },
    { name: 'availableResolutions', type: 'text', access: pluginOnly, admin: dataAdmin },
    {
      name: 'resolutions',
      type: 'array',
      admin: dataAdmin,
      // Not field access: a denied array is left out of the update and the SQL adapters then delete its rows
      // (every title edit emptied it). API values are replaced by the stored rows instead; the plugin writes with overrideAccess.
      hooks: { beforeValidate: [({ overrideAccess, previousValue, value }) => (overrideAccess ? value : previousValue)] },
      fields: [
        { name: 'resolution', type: 'text' },
        { name: 'url', type: 'text', hooks: renditionHooks },
      ],
    },
  ]
  return {
    name: 'hostData',
    type: 'group',
    admin: { position: 'sidebar' },
    label: ({ t }) => (t as (key: string) => string)(`${I18N_NAMESPACE}:hostData`),
    fields: [{ name: 'stream', type: 'group', fields: overrides ? overrides(streamFields) : streamFields }],
  }
}
