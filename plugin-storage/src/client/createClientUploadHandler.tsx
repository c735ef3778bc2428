'use client'
/**
 * @module client/createClientUploadHandler
 * The admin provider that registers a collection's client-upload handler with Payload 3's form
 * (`useUploadHandlers`): plugin-cloud-storage 3.90's `createClientUploadHandler` (MIT, Payload CMS), kept
 * here so the admin bundle imports only the app's own `@payloadcms/ui` (a copy pinned to another patch
 * release has another React context than the form's, and a handler set through it is never called).
 * Only 3.x cores use this provider (4.x carries client uploads by upload instructions).
 */
import type { UploadCollectionSlug } from 'payload'
import * as ui from '@payloadcms/ui'
import { Fragment, useEffect, type ReactNode } from 'react'

export interface ClientUploadHandlerArgs<T> {
  apiRoute: string
  collectionSlug: UploadCollectionSlug
  docPrefix?: string
  extra: T
  file: File
  prefix?: string
  serverHandlerPath: `/${string}`
  serverURL: string
  updateFilename: (value: string) => void
}

export interface ClientUploadHandlerProps<T> {
  children: ReactNode
  collectionSlug: UploadCollectionSlug
  enabled?: boolean
  extra: T
  prefix?: string
  serverHandlerPath: `/${string}`
}

/** 3.x's form hook; read from the namespace so a core without it (4.x) still bundles this module. */
type UseUploadHandlers = () => {
  setUploadHandler: (args: {
    collectionSlug: UploadCollectionSlug
    handler: (args: { docPrefix?: string; file: File; updateFilename: (filename: string) => void }) => Promise<unknown>
  }) => unknown
}
// Cast: the installed (3.x) typings declare it always present; a 4.x core lacks it, so it is read as optional.
const useUploadHandlers = (ui as unknown as { useUploadHandlers?: UseUploadHandlers }).useUploadHandlers

/** A provider component that hands `handler` every file the collection's upload field sends. */
export function createClientUploadHandler<T extends Record<string, unknown>>({ handler }: { handler: (args: ClientUploadHandlerArgs<T>) => Promise<unknown> }) {
  return function ClientUploadHandler({ children, collectionSlug, enabled, extra, prefix, serverHandlerPath }: ClientUploadHandlerProps<T>) {
    if (!useUploadHandlers) throw new Error('storage-host plugin: this Payload admin has no useUploadHandlers (a 3.x provider on a 4.x core)')
    const { setUploadHandler } = useUploadHandlers()
    const {
      config: {
        routes: { api: apiRoute },
        serverURL,
      },
    } = ui.useConfig()
    const initializeHandler = ui.useEffectEvent(() => {
      if (!enabled) return
      setUploadHandler({
        collectionSlug,
        handler: ({ docPrefix, file, updateFilename }) =>
          handler({ apiRoute, collectionSlug, docPrefix, extra, file, prefix, serverHandlerPath, serverURL, updateFilename }),
      })
    })
    useEffect(() => {
      initializeHandler()
      // Once, on mount, as plugin-cloud-storage does (the effect event reads the latest props).
    }, [])
    return <Fragment>{children}</Fragment>
  }
}
