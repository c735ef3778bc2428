/**
 * The plugin's one name (README, "The plugin's name"): "storage host", kebab-case as a slug and
 * camelCase as a key or export. The old export names keep working as deprecated aliases, and no
 * source file spells the name another way.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { expect } from 'chai'

import { PLUGIN_KEY, PLUGIN_SLUG, STORAGE_UPLOAD_PATH, TUS_AUTH_PATH, WEBHOOK_PATH } from '../src/constants.js'
import * as pkg from '../src/index.js'
import { I18N_NAMESPACE } from '../src/translations/index.js'

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name)).map((e) => join(e.parentPath, e.name))
}

describe("the plugin's name", () => {
  it("keeps the specification's endpoint paths under the slug", () => {
    expect(PLUGIN_SLUG).to.equal('storage-host')
    expect([TUS_AUTH_PATH, WEBHOOK_PATH, STORAGE_UPLOAD_PATH]).to.deep.equal([
      '/storage-host/stream/tus-auth',
      '/storage-host/stream/webhook',
      '/storage-host/storage/upload',
    ])
  })

  it('is the camelCase of the slug as the i18n namespace and in the exports', () => {
    const camel = PLUGIN_SLUG.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())
    expect(PLUGIN_KEY).to.equal(camel)
    expect(I18N_NAMESPACE).to.equal(camel)
    expect(pkg.storageHostPlugin).to.be.a('function')
  })

  it('keeps hostStoragePlugin as a deprecated alias of storageHostPlugin', () => {
    expect(pkg.hostStoragePlugin).to.equal(pkg.storageHostPlugin)
  })

  it('is spelled no other way in the sources (hostStorage only in the deprecated aliases)', async () => {
    const files = await sourceFiles(SRC)
    expect(files.length, 'source files found').to.be.greaterThan(50)
    const strays: string[] = []
    for (const file of files) {
      const lines = (await readFile(file, 'utf8')).split('\n')
      lines.forEach((line, i) => {
        if (!/hostStorage/i.test(line)) return
        const alias = /^export (const hostStoragePlugin = storageHostPlugin|type HostStoragePluginOptions = StorageHostPluginOptions)$/.test(line)
        const reexport = line === "export { hostStoragePlugin, storageHostPlugin } from './plugin.js'"
        if (!alias && !reexport) strays.push(`${file.slice(SRC.length)}:${i + 1}: ${line.trim()}`)
      })
    }
    expect(strays).to.deep.equal([])
  })
})
