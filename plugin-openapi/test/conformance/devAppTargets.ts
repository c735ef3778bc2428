/**
 * @module plugin-openapi/test/conformance/devAppTargets
 * The two servers of the running dev-app as conformance targets: the CMS (`/api/openapi.json`, a JWT of the
 * printed admin; `payloadTarget.ts`) and the backup daemon (`/api/v1/openapi`, its session cookie). Each keeps
 * its own session alive: the admin's own account is never a target of an update or delete, and a lost session
 * is signed in again after the operation that ended it.
 */
import { destructiveLast, json, payloadTarget, uploadForm } from './payloadTarget.js'
import type { ConformanceTarget } from './runConformance.js'
import type { SampleFiles } from './sampleFiles.js'
import type { Schema } from './schemaArbitrary.js'

export interface DevAppAccess {
  cmsUrl: string
  daemonUrl: string
  credentials: { adminEmail: string; adminPassword: string; daemonUsername: string; daemonPassword: string }
}

/** The dev-app's CMS, signed in as the printed admin; a collection that generated deletes emptied gets one of these documents again. */
export async function cmsTarget(app: DevAppAccess, doc: Schema, samples: SampleFiles): Promise<ConformanceTarget> {
  let made = 0
  return payloadTarget({
    name: 'dev-app CMS',
    origin: app.cmsUrl,
    apiRoute: '/api',
    doc,
    login: { collection: 'users', email: app.credentials.adminEmail, password: app.credentials.adminPassword },
    fixtures: {
      users: () => ({ email: `fixture-${++made}@example.com`, password: `Fixture-pass-${made}` }),
      images: () => uploadForm({ name: `fixture-${++made}.png`, type: 'image/png', bytes: samples.png }, { alt: 'fixture' }),
      videos: () => uploadForm({ name: `fixture-${++made}.mp4`, type: 'video/mp4', bytes: samples.mp4 }, { title: 'fixture' }),
      documents: () => uploadForm({ name: `fixture-${++made}.txt`, type: 'text/plain', bytes: Buffer.from('A members document.\n') }, { title: 'fixture' }),
      'private-videos': () => uploadForm({ name: `fixture-${++made}.mp4`, type: 'video/mp4', bytes: samples.mp4 }, { title: 'fixture' }),
      posts: () => ({ title: `Fixture ${++made}`, _status: 'published' }),
    },
    files: [
      { name: 'sample.png', type: 'image/png', bytes: samples.png },
      { name: 'sample.mp4', type: 'video/mp4', bytes: samples.mp4 },
      { name: 'sample.txt', type: 'text/plain', bytes: Buffer.from('A members document.\n') },
    ],
  })
}

/** The dev-app's backup daemon: its job names and the snapshot names it lists are offered to the generated requests. */
export async function daemonTarget(app: DevAppAccess, doc: Schema): Promise<ConformanceTarget> {
  const api = `${app.daemonUrl}/api/v1`
  const login = async () => {
    const res = await fetch(`${api}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: app.daemonUrl },
      body: JSON.stringify({ username: app.credentials.daemonUsername, password: app.credentials.daemonPassword }),
    })
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('backup_session='))
    if (!cookie) throw new Error(`the dev-app daemon refuses its printed login: ${res.status} ${await res.text()}`)
    return cookie.split(';')[0]!
  }
  let cookie = await login()
  const jobs = ((await json(`${api}/jobs`, { headers: { Cookie: cookie } }))?.jobs ?? []) as { name: string }[]
  const names = jobs.map((j) => j.name)
  let snapshots: string[] = []
  return {
    name: 'dev-app backup daemon',
    baseUrl: api,
    doc,
    // A state-changing request carries the daemon's own Origin, as its UI sends it (cross-site ones are refused).
    credentials: async () => ({ Cookie: cookie, Origin: app.daemonUrl }),
    examples: {
      parameter(_d, name) {
        if (name === 'name') return names
        if (name === 'filename') return snapshots
        return []
      },
    },
    async prepare() {
      const lists = await Promise.all(names.map((n) => json(`${api}/jobs/${n}/backups`, { headers: { Cookie: cookie } })))
      snapshots = lists.flatMap((l) => ((l?.backups ?? []) as { name: string }[]).map((b) => b.name))
    },
    async after() {
      const check = await json(`${api}/auth/check`, { headers: { Cookie: cookie } })
      // After the generated logins the address may be locked out (429): nothing runs after them.
      if (!check?.authenticated) cookie = await login().catch(() => cookie)
    },
    order: (ops) => destructiveLast(ops, /^logout$/, /^login$/),
    // None: the daemon answered every generated request as documented.
    known: [],
  }
}
