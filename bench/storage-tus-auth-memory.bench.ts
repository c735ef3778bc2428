/**
 * @module bench/storage-tus-auth-memory
 * Issue 39 item 11: the CMS's RSS grew from 175 to 456 MB during 60 s of 20 parallel tus-auth requests
 * and stayed there. Is it bounded (the heap sizing up under load) or a leak (something kept per request)?
 * The CMS (a real Payload + SQLite with the plugin) runs in its own child process with `--expose-gc`; the
 * emulator (whose library then holds tens of thousands of videos) runs in the bench process, so its memory
 * never counts. After a warm-up, `BENCH_MEMORY_ROUNDS` rounds (default 3) of `BENCH_MEMORY_SECONDS` (20) of
 * 20 parallel tus-auth calls; after each round the child runs a full GC and reports its heap's objects
 * (V8's spaces without the code spaces: optimised code keeps growing for a while and is not kept per
 * request). A leak grows them with every round (by what each request keeps); a bounded heap returns to
 * about the same size however many requests went through. RSS is sampled every 100 ms for context.
 * `BENCH_MEMORY_SNAPSHOTS=1` also writes heap snapshots after the first and the last round and prints the
 * constructors whose object count grew most between them (support/heapSnapshotDiff.ts).
 *
 * Run: `npm run bench -- tus-auth-memory`. This file is also the CMS child's entry (`cms-child`).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'

import { snapshotGrowth } from './support/heapSnapshotDiff.js'
import { printResult, rssMiB } from './support/measure.js'

const MiB = 1 << 20
const root = fileURLToPath(new URL('..', import.meta.url))
const PARALLEL = 20

interface EmulatorUrls {
  url: string
  storage: Record<string, unknown>
  stream: Record<string, unknown>
}

if (process.argv[2] === 'cms-child') {
  const support = (await import(new URL('../plugin-storage/test/support/startCms.ts', import.meta.url).href)) as {
    emulatorOptions(emu: EmulatorUrls): unknown
    startCms(options: unknown): Promise<{ url: string; token: string; close(): Promise<void> }>
  }
  const cms = await support.startCms(support.emulatorOptions(JSON.parse(process.env.BENCH_EMULATOR ?? '{}') as EmulatorUrls))
  console.log(JSON.stringify({ token: cms.token, url: cms.url }))
  createInterface({ input: process.stdin }).on('line', (line) => {
    // `gc`, or `gc <file>`: a full collection, then (with a file) a heap snapshot written there.
    const [command, snapshotFile] = line.split(' ')
    if (command !== 'gc') return
    const gc = (globalThis as { gc?: () => void }).gc
    if (!gc) throw new Error('the CMS child needs --expose-gc')
    gc()
    gc()
    if (snapshotFile) writeHeapSnapshot(snapshotFile)
    // Objects only: compiled code (code spaces) keeps growing while V8 optimises more functions.
    const objects = getHeapSpaceStatistics()
      .filter((space) => !space.space_name.startsWith('code'))
      .reduce((sum, space) => sum + space.space_used_size, 0)
    console.log(`MEMORY ${JSON.stringify({ ...process.memoryUsage(), objects })}`)
  })
  process.stdin.on('end', () => void cms.close().then(() => process.exit(0)))
} else {
  await main()
}

async function main(): Promise<void> {
  const { startEmulator } = (await import(new URL('../dev-app/src/emulator/index.ts', import.meta.url).href)) as {
    startEmulator(o: unknown): Promise<EmulatorUrls & { close(): Promise<void> }>
  }
  const rounds = Number(process.env.BENCH_MEMORY_ROUNDS ?? 3)
  const seconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 20)
  const snapshots = process.env.BENCH_MEMORY_SNAPSHOTS === '1'
  const dir = mkdtempSync(join(tmpdir(), 'bench-tus-memory-'))
  const emu = await startEmulator({ dataDir: join(dir, 'emulator') })
  const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), 'cms-child'], {
    cwd: root,
    env: { ...process.env, BENCH_EMULATOR: JSON.stringify({ storage: emu.storage, stream: emu.stream, url: emu.url }), NODE_ENV: 'development' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  // The CMS's own log lines (Payload logs to stdout): shown, so a failed request says why.
  lines.on('line', (line) => {
    if (!line.startsWith('{"token"') && !line.startsWith('MEMORY ')) process.stderr.write(`cms: ${line}\n`)
  })
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const onLine = (line: string) => {
        if (!line.startsWith(prefix)) return
        lines.off('line', onLine)
        resolve(line.slice(prefix.length))
      }
      lines.on('line', onLine)
      child.once('exit', (code) => reject(new Error(`CMS child exited with ${code}`)))
    })
  try {
    const cms = JSON.parse(await nextLine('{').then((rest) => `{${rest}`)) as { token: string; url: string }
    const body = JSON.stringify({ collection: 'videos', filename: 'bench.mp4', filesize: 1 << 20, filetype: 'video/mp4', title: 'memory' })
    const headers = { Authorization: `JWT ${cms.token}`, 'Content-Type': 'application/json' }
    let requests = 0
    /** 20 callers, each sending its next tus-auth as soon as its last one is answered, for `ms`. */
    const load = async (ms: number) => {
      const until = Date.now() + ms
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (Date.now() < until) {
            const res = await fetch(`${cms.url}/api/storage-host/stream/tus-auth`, { body, headers, method: 'POST' })
            const answer = await res.text()
            if (res.status !== 200) throw new Error(`tus-auth answered ${res.status}: ${answer.slice(0, 500)}`)
            requests++
          }
        }),
      )
    }
    const heapAfterGc = async (snapshotFile?: string) => {
      const answer = nextLine('MEMORY ')
      child.stdin!.write(snapshotFile ? `gc ${snapshotFile}\n` : 'gc\n')
      const usage = JSON.parse(await answer) as NodeJS.MemoryUsage & { objects: number }
      return { external: usage.external / MiB, heapUsed: usage.heapUsed / MiB, objects: usage.objects / MiB, rss: rssMiB(child.pid!) }
    }
    let maxRss = rssMiB(child.pid!)
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMiB(child.pid!))), 100)
    await load(5_000)
    const warm = await heapAfterGc()
    console.log(
      `after warm-up (${requests} requests): heap ${warm.heapUsed.toFixed(1)} MiB (objects ${warm.objects.toFixed(1)} MiB), external ${warm.external.toFixed(1)} MiB, RSS ${warm.rss.toFixed(1)} MiB`,
    )
    const after: Array<{ objects: number; requests: number }> = []
    for (let round = 1; round <= rounds; round++) {
      await load(seconds * 1000)
      const m = await heapAfterGc(snapshots && (round === 1 || round === rounds) ? join(dir, `round-${round}.heapsnapshot`) : undefined)
      after.push({ objects: m.objects, requests })
      console.log(
        `round ${round}: ${requests} requests so far; after GC heap ${m.heapUsed.toFixed(1)} MiB (objects ${m.objects.toFixed(2)} MiB), external ${m.external.toFixed(1)} MiB, ` +
          `RSS ${m.rss.toFixed(1)} MiB (max so far ${maxRss.toFixed(1)} MiB)`,
      )
    }
    clearInterval(sampler)
    if (snapshots && rounds > 1) {
      console.log(`objects that grew from round 1 to round ${rounds} (heap snapshots after GC):`)
      for (const line of snapshotGrowth(join(dir, 'round-1.heapsnapshot'), join(dir, `round-${rounds}.heapsnapshot`))) console.log(`  ${line}`)
    }
    // From the end of round 1: the first round also warms up what stays (V8's optimised code, pools, caches).
    const first = after[0]!
    const last = after.at(-1)!
    const perThousand = ((last.objects - first.objects) * 1024) / ((last.requests - first.requests) / 1000)
    console.log(
      `post-GC objects from round 1 to round ${rounds}: ${(last.objects - first.objects).toFixed(2)} MiB over ${last.requests - first.requests} requests`,
    )
    printResult(
      'storage-tus-auth-memory kept-per-1000-requests',
      perThousand / 1024,
      `MiB of post-GC objects (heap without compiled code) kept per 1000 tus-auth calls (${perThousand.toFixed(1)} KiB)`,
      '< 0.10x',
    )
    printResult(
      'storage-tus-auth-memory max-rss',
      maxRss / warm.rss,
      `max RSS during the rounds / RSS after the warm-up (${maxRss.toFixed(0)} / ${warm.rss.toFixed(0)} MiB)`,
    )
  } finally {
    child.stdin?.end()
    await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 5000))])
    if (child.exitCode === null) child.kill()
    await emu.close()
    rmSync(dir, { force: true, recursive: true })
  }
}
