/**
 * @module bench/openapi-generation
 * Generation time of the whole OpenAPI description (generate + JSON text) for a config of 100 collections with
 * nested fields (groups, arrays, blocks, tabs, relationships), against payload-oapi's generator on the same
 * sanitized config in the same run. Target: faster than payload-oapi and under 300 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { printResult } from './support/measure.js'

// Loaded through untyped specifiers: Payload's types pull in Next.js globals (a required NODE_ENV) that would
// change `process.env` for every other benchmark of this TypeScript project; the plugin's sources belong to
// their own project.
type Config = Record<string, any>
type Field = Record<string, any>
const load = (specifier: string): Promise<any> => import(specifier)
const { buildConfig } = (await load('payload')) as { buildConfig(config: Config): Promise<Config> }
const { sqliteAdapter } = (await load('@payloadcms/db-sqlite')) as { sqliteAdapter(args: Config): unknown }
const { generateV31Spec } = (await load('payload-oapi/dist/openapi/generators.js')) as { generateV31Spec(req: unknown, options: unknown): Promise<unknown> }
const { generateOpenAPIDocument } = (await load(new URL('../plugin-openapi/src/index.ts', import.meta.url).href)) as {
  generateOpenAPIDocument(config: Config): { paths: Record<string, Record<string, unknown>> }
}

const COLLECTIONS = 100
const RUNS = 7

function nestedFields(i: number): Field[] {
  const target = `c${(i + 1) % COLLECTIONS}`
  return [
    { name: 'title', type: 'text', required: true },
    { name: 'count', type: 'number' },
    { name: 'status', type: 'select', options: ['a', 'b', 'c'] },
    { name: 'when', type: 'date' },
    { name: 'link', type: 'relationship', relationTo: target },
    { name: 'poly', type: 'relationship', relationTo: [target, `c${(i + 2) % COLLECTIONS}`], hasMany: true },
    {
      name: 'meta',
      type: 'group',
      fields: [
        { name: 'a', type: 'text' },
        {
          name: 'rows',
          type: 'array',
          fields: [
            { name: 'label', type: 'text' },
            { name: 'ref', type: 'relationship', relationTo: target },
            {
              name: 'inner',
              type: 'group',
              fields: [
                { name: 'x', type: 'number' },
                { name: 'y', type: 'checkbox' },
              ],
            },
          ],
        },
      ],
    },
    {
      type: 'tabs',
      tabs: [
        { label: 'One', fields: [{ name: 'tabA', type: 'textarea' }] },
        {
          name: 'two',
          label: 'Two',
          fields: [
            { name: 'tabB', type: 'email' },
            { name: 'point', type: 'point' },
          ],
        },
      ],
    },
    {
      name: 'layout',
      type: 'blocks',
      blocks: [
        {
          slug: `hero${i}`,
          fields: [
            { name: 'heading', type: 'text' },
            {
              name: 'cta',
              type: 'group',
              fields: [
                { name: 'url', type: 'text' },
                { name: 'page', type: 'relationship', relationTo: target },
              ],
            },
          ],
        },
        {
          slug: `list${i}`,
          fields: [
            {
              name: 'items',
              type: 'array',
              fields: [
                { name: 'text', type: 'text' },
                { name: 'json', type: 'json' },
              ],
            },
          ],
        },
      ],
    },
  ]
}

const dir = mkdtempSync(join(tmpdir(), 'openapi-bench-'))
const collections: Config[] = Array.from({ length: COLLECTIONS }, (_, i) => ({ slug: `c${i}`, versions: { drafts: i % 3 === 0 }, fields: nestedFields(i) }))
const config = await buildConfig({
  secret: 'bench',
  telemetry: false,
  db: sqliteAdapter({ client: { url: `file:${join(dir, 'bench.sqlite')}` } }),
  collections,
})

// payload-oapi reads a Payload instance; a stand-in with the same members is enough for its generator.
const fakePayload = {
  blocks: {},
  collections: Object.fromEntries(config.collections.map((c: Config) => [c.slug, { config: c }])),
  config,
  globals: { config: config.globals },
}
const oapiOptions = {
  openapiVersion: '3.1',
  authEndpoint: '/openapi-auth',
  metadata: { title: 'Bench', version: '1' },
  filters: {},
  apiBasePath: null,
} as const

async function ours(): Promise<number> {
  return JSON.stringify(generateOpenAPIDocument(config)).length
}
async function theirs(): Promise<number> {
  const req = { payload: fakePayload, protocol: 'http:', headers: new Headers({ host: 'localhost' }) }
  return JSON.stringify(await generateV31Spec(req, oapiOptions)).length
}

/** Wall time, and CPU time of this process (steadier on a shared machine: other processes' load does not count). */
async function time(fn: () => Promise<number>): Promise<{ ms: number; cpuMs: number; bytes: number }> {
  ;(globalThis as { gc?: () => void }).gc?.()
  const cpu = process.cpuUsage()
  const start = performance.now()
  const bytes = await fn()
  const used = process.cpuUsage(cpu)
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, bytes }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

// First (cold) run of each, reported separately: the plugin generates once per process.
const coldOurs = await time(ours)
const coldTheirs = await time(theirs)
const oursMs: number[] = []
const theirsMs: number[] = []
const oursCpu: number[] = []
const theirsCpu: number[] = []
let sizes = { ours: coldOurs.bytes, theirs: coldTheirs.bytes }
for (let i = 0; i < RUNS; i++) {
  const a = await time(ours)
  const b = await time(theirs)
  oursMs.push(a.ms)
  theirsMs.push(b.ms)
  oursCpu.push(a.cpuMs)
  theirsCpu.push(b.cpuMs)
  sizes = { ours: a.bytes, theirs: b.bytes }
}
const opCount = Object.values(generateOpenAPIDocument(config).paths).reduce((n, item) => n + Object.keys(item).length, 0)
console.log(
  `config: ${COLLECTIONS} collections with nested fields; our description: ${opCount} operations, ${(sizes.ours / 1024).toFixed(0)} KiB JSON; payload-oapi: ${(sizes.theirs / 1024).toFixed(0)} KiB`,
)
console.log(`cold: ours ${coldOurs.ms.toFixed(1)} ms, payload-oapi ${coldTheirs.ms.toFixed(1)} ms`)
console.log(
  `warm median of ${RUNS}: ours ${median(oursMs).toFixed(1)} ms wall / ${median(oursCpu).toFixed(1)} ms CPU, payload-oapi ${median(theirsMs).toFixed(1)} ms wall / ${median(theirsCpu).toFixed(1)} ms CPU`,
)
console.log(
  `load average: ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
)
// The ratio uses CPU time: on the shared 2-core machines wall time mostly measures other processes' load.
printResult(
  'openapi-generation',
  median(theirsCpu) / median(oursCpu),
  `faster than payload-oapi, CPU time (ours ${median(oursCpu).toFixed(0)} ms CPU / ${median(oursMs).toFixed(0)} ms wall warm, ${coldOurs.ms.toFixed(0)} ms wall cold; wall ratio ${(median(theirsMs) / median(oursMs)).toFixed(2)}x)`,
  '> 1x, < 300 ms',
)
rmSync(dir, { recursive: true, force: true })
