/**
 * @module bench/storage-tus-upload
 * The storage plugin's promise, measured: a 1 GiB video goes through tus-auth and then straight from the
 * client to the host emulator's TUS endpoint, while the CMS (a real Payload + SQLite with the plugin, in
 * its own child process) is sampled for RSS. The bytes never pass through it, so its RSS must not grow
 * (target: < 20 MiB over its warmed-up baseline). Also prints the latency of tus-auth as a ratio to
 * `GET /api/users/me` on the same CMS, interleaved in the same run (target: < 2).
 *
 * Run: `npm run bench -- storage-tus`. `BENCH_TUS_MIB` changes the video size (default 1024).
 * This file is also the CMS child's entry (`cms-child`).
 */
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { once } from 'node:events'

import { peakRssMiB, printResult, rssMiB } from './support/measure.js'

const MiB = 1 << 20
const root = fileURLToPath(new URL('..', import.meta.url))

interface EmulatorUrls {
  url: string
  storage: { endpoint: string; s3Endpoint: string; zoneName: string; accessKey: string; cdnUrl: string; region?: string }
  stream: { apiBase: string; tusEndpoint: string; cdnUrl: string; libraryId: number; apiKey: string; readOnlyKey: string }
}

if (process.argv[2] === 'cms-child') {
  // Loaded by URL so the bench project does not typecheck the plugin's test sources (own project).
  const support = (await import(new URL('../plugin-storage/test/support/startCms.ts', import.meta.url).href)) as {
    emulatorOptions(emu: EmulatorUrls): unknown
    startCms(options: unknown): Promise<{ url: string; token: string; close(): Promise<void> }>
  }
  const emu = JSON.parse(process.env.BENCH_EMULATOR ?? '{}') as EmulatorUrls
  const cms = await support.startCms(support.emulatorOptions(emu))
  console.log(JSON.stringify({ token: cms.token, url: cms.url }))
  process.stdin.resume()
  process.stdin.on('end', () => void cms.close().then(() => process.exit(0)))
} else {
  await main()
}

/** A file that starts like an MP4 (`ftyp`, then one `mdat` box), `size` bytes, written in 8 MiB blocks. */
async function writeVideo(path: string, size: number): Promise<Buffer> {
  const { mp4Header } = (await import(new URL('../plugin-storage/test/support/media.ts', import.meta.url).href)) as { mp4Header(size: number): Buffer }
  const out = createWriteStream(path)
  const block = Buffer.alloc(8 * MiB)
  for (let i = 0; i < block.length; i++) block[i] = (i * 131) & 0xff
  const head = mp4Header(size)
  const firstBlock = Buffer.from(block)
  head.copy(firstBlock, 0)
  let written = 0
  while (written < size) {
    const source = written === 0 ? firstBlock : block
    const n = Math.min(source.length, size - written)
    if (!out.write(n === source.length ? source : source.subarray(0, n))) await once(out, 'drain')
    written += n
  }
  out.end()
  await once(out, 'finish')
  return firstBlock.subarray(0, 4096)
}

async function timed(fn: () => Promise<Response>): Promise<number> {
  const start = process.hrtime.bigint()
  const res = await fn()
  await res.arrayBuffer()
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  return Number(process.hrtime.bigint() - start) / 1e6
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? NaN
}

async function main(): Promise<void> {
  const { startEmulator } = (await import(new URL('../dev-app/src/emulator/index.ts', import.meta.url).href)) as {
    startEmulator(o: unknown): Promise<EmulatorUrls & { close(): Promise<void>; setWebhookUrl(u: string): void; whenEncoded(g: string): Promise<unknown> }>
  }
  // Through a variable so the bench project does not pull tus-js-client's (and, through it, other) global types.
  const tusModule = 'tus-js-client'
  const { Upload } = (await import(tusModule)) as { Upload: new (file: unknown, options: Record<string, unknown>) => { start(): void } }
  const size = Number(process.env.BENCH_TUS_MIB ?? 1024) * MiB
  const dir = mkdtempSync(join(tmpdir(), 'bench-tus-'))
  const emu = await startEmulator({ dataDir: join(dir, 'emulator'), stream: { encodingStepMs: 100 } })
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'cms-child'], {
    cwd: root,
    env: { ...process.env, BENCH_EMULATOR: JSON.stringify({ storage: emu.storage, stream: emu.stream, url: emu.url }), NODE_ENV: 'development' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  try {
    const first = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! })
      lines.on('line', (line) => {
        if (line.startsWith('{')) resolve(line)
      })
      child.once('exit', (code) => reject(new Error(`CMS child exited with ${code}`)))
    })
    const cms = JSON.parse(first) as { token: string; url: string }
    emu.setWebhookUrl(`${cms.url}/api/storage-host/stream/webhook`)
    const auth = { Authorization: `JWT ${cms.token}` }
    const videoPath = join(dir, 'video.mp4')
    const head = await writeVideo(videoPath, size)
    const tusBody = (title: string) =>
      JSON.stringify({ collection: 'videos', filename: 'bench.mp4', filesize: size, filetype: 'video/mp4', head: head.toString('base64'), title })
    const tusAuth = (title: string) =>
      fetch(`${cms.url}/api/storage-host/stream/tus-auth`, { body: tusBody(title), headers: { ...auth, 'Content-Type': 'application/json' }, method: 'POST' })
    const me = () => fetch(`${cms.url}/api/users/me`, { headers: auth })

    // Latency: warm up, then interleave the two requests so load changes hit both alike.
    for (let i = 0; i < 30; i++) {
      await timed(me)
      await timed(() => tusAuth(`warm ${i}`))
    }
    const meMs: number[] = []
    const tusMs: number[] = []
    for (let i = 0; i < 200; i++) {
      meMs.push(await timed(me))
      tusMs.push(await timed(() => tusAuth(`bench ${i}`)))
    }
    const latencyRatio = median(tusMs) / median(meMs)
    console.log(`tus-auth median ${median(tusMs).toFixed(2)} ms, users/me median ${median(meMs).toFixed(2)} ms`)

    // Upload: baseline RSS of the warmed-up CMS, then sample while the video goes to the host.
    const baseline = rssMiB(child.pid!)
    const hwmBefore = peakRssMiB(child.pid!)
    let maxRss = baseline
    const sampler = setInterval(() => {
      maxRss = Math.max(maxRss, rssMiB(child.pid!))
    }, 50)
    const started = Date.now()
    const res = await tusAuth('the 1 GiB video')
    const signed = (await res.json()) as {
      videoId: string
      videoToken: string
      libraryId: number
      authorizationSignature: string
      authorizationExpire: number
      filename: string
      signedReceipt: string
    }
    await new Promise<void>((resolve, reject) => {
      const upload = new Upload(createReadStream(videoPath, { highWaterMark: 4 * MiB }), {
        chunkSize: 64 * MiB,
        endpoint: emu.stream.tusEndpoint,
        headers: {
          AuthorizationExpire: String(signed.authorizationExpire),
          AuthorizationSignature: signed.authorizationSignature,
          LibraryId: String(signed.libraryId),
          VideoId: signed.videoId,
        },
        metadata: { filetype: 'video/mp4', title: 'the 1 GiB video' },
        onError: reject,
        onSuccess: () => resolve(),
        uploadSize: size,
      })
      upload.start()
    })
    const uploadSeconds = (Date.now() - started) / 1000
    // Save the document by receipt (no bytes), then let the encoding callbacks reach the CMS.
    const form = new FormData()
    form.append(
      'file',
      JSON.stringify({ clientUploadContext: { signedReceipt: signed.signedReceipt }, filename: signed.filename, mimeType: 'video/mp4', size }),
    )
    form.append('_payload', JSON.stringify({ hostData: { stream: { videoToken: signed.videoToken } }, title: 'bench' }))
    const saved = await fetch(`${cms.url}/api/videos`, { body: form, headers: auth, method: 'POST' })
    if (saved.status !== 201) throw new Error(`saving the document answered ${saved.status}: ${await saved.text()}`)
    await emu.whenEncoded(signed.videoId)
    clearInterval(sampler)
    maxRss = Math.max(maxRss, rssMiB(child.pid!))
    const growth = maxRss - baseline
    console.log(
      `${(size / MiB).toFixed(0)} MiB uploaded in ${uploadSeconds.toFixed(1)} s (${(size / MiB / uploadSeconds).toFixed(0)} MiB/s); ` +
        `CMS RSS baseline ${baseline.toFixed(1)} MiB, max during upload+callbacks ${maxRss.toFixed(1)} MiB (growth ${growth.toFixed(1)} MiB), ` +
        `VmHWM ${hwmBefore.toFixed(1)} -> ${peakRssMiB(child.pid!).toFixed(1)} MiB`,
    )
    printResult(
      'storage-tus-upload cms-rss-growth',
      growth / 20,
      `of the 20 MiB budget (${growth.toFixed(1)} MiB growth for a ${(size / MiB).toFixed(0)} MiB upload)`,
      '< 1.00x',
    )
    printResult('storage-tus-upload tus-auth-latency', latencyRatio, 'tus-auth median latency / GET /api/users/me', '< 2x')
  } finally {
    child.stdin?.end()
    await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 5000))])
    if (child.exitCode === null) child.kill()
    await emu.close()
    rmSync(dir, { force: true, recursive: true })
  }
}
