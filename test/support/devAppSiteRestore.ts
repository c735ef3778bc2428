/**
 * @module test/support/devAppSiteRestore
 * The last step of the dev-app scenario on a database server (`devAppScenario.ts`, PostgreSQL): with the
 * dev-app stopped, `npm run restore-site` as the README gives it, with `--database-uri` naming a new
 * database, brings the whole site back. The new database holds every table with the live one's row
 * counts, the new folder's storage zone every image's file, the video document points at the video's new
 * GUID in the fresh emulator library (the old one nowhere), and the live database is untouched; a full
 * database and the live one are refused as targets. (On SQLite, `test/restore-site.e2e.test.ts` does this and
 * then plays the restored video in Chromium.)
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { DevAppDatabase, SqlQuery } from './devAppDatabases.js'
import { walk } from './files.js'
import { runCommand } from './runCommand.js'

export interface SiteRestoreInput {
  database: DevAppDatabase
  /** The stopped dev-app's data folder, and the environment it ran with (ports, DATABASE_URI). */
  dataDir: string
  env: Record<string, string>
  /** The video document uploaded before the snapshot: its id and GUID. */
  video: { id: number; guid: string }
  /** Strings no output may show (the database password). */
  secrets: string[]
}

export async function restoreWholeSite(input: SiteRestoreInput): Promise<void> {
  const { uri, query } = input.database.siteRestore!()
  const restoredDir = path.join(mkdtempSync(path.join(tmpdir(), 'site-restore-e2e-')), 'data')
  try {
    const npmArgs = ['run', 'restore-site', '-w', 'dev-app', '--', '--snapshot', 'latest', '--from', input.dataDir, '--data-dir', restoredDir]
    const output = await runCommand('npm', [...npmArgs, '--database-uri', uri], input.env)
    expect(output).to.match(/videos: 1 uploaded, 0 skipped/)
    expect(output).to.match(/restoring the database into database "cms_site" on 127\.0\.0\.1:\d+/)
    for (const secret of input.secrets) expect(output, 'the password in restore-site’s output').to.not.contain(secret)
    const map = JSON.parse(readFileSync(path.join(restoredDir, 'restore-guid-map.json'), 'utf8')) as { videos: { ids: Record<string, string> } }
    const newGuid = map.videos.ids[input.video.guid]
    expect(newGuid).to.be.a('string').and.not.equal(input.video.guid)
    expect(output).to.contain(`remap: videos ${input.video.id}: video ${input.video.guid} → ${newGuid}`)

    // Every table, with the live database's row counts.
    const tablesSql = input.database.tablesSql
    const tables = (await input.database.live(tablesSql)).split('\n')
    expect((await query(tablesSql)).split('\n')).to.deep.equal(tables)
    const counts = (sql: SqlQuery) => Promise.all(tables.map(async (t) => `${t}=${await sql(`SELECT count(*) FROM "${t}"`)}`))
    expect(await counts(query)).to.deep.equal(await counts(input.database.live))
    // Every image's file is in the new folder's storage zone.
    const stored = walk(path.join(restoredDir, 'host', 'storage')).map((file) => path.basename(file))
    const images = (await query('SELECT filename FROM images ORDER BY id')).split('\n')
    expect(images.length).to.be.greaterThan(1)
    expect(stored).to.include.members(images)
    // The video document points at the new GUID only; the live site's still at the old one. (Its stored
    // `thumbnailURL` column is left out: Payload recomputes that field from hostData.stream on every read.)
    const videoRow = (sql: SqlQuery) =>
      sql(`SELECT string_agg(value, ' ') FROM videos v, jsonb_each_text(to_jsonb(v)) WHERE v.id = ${input.video.id} AND key NOT LIKE 'thumbnail%'`)
    expect(await videoRow(query))
      .to.contain(newGuid)
      .and.not.contain(input.video.guid)
    expect(await videoRow(input.database.live)).to.contain(input.video.guid)

    // A second run into the same, now full, database is refused before anything is restored.
    const again = await runCommand('npm', [...npmArgs.slice(0, -1), `${restoredDir}-again`, '--database-uri', uri], input.env).then(
      () => '',
      (err: Error) => err.message,
    )
    expect(again).to.match(/database "cms_site" on 127\.0\.0\.1:\d+ holds \d+ table\(s\): give a new or empty database/)
    // And the live site's own database is refused as a target.
    const live = await runCommand('npm', [...npmArgs.slice(0, -1), `${restoredDir}-live`, '--database-uri', input.env.DATABASE_URI!], input.env).then(
      () => '',
      (err: Error) => err.message,
    )
    expect(live).to.match(/--database-uri names the live site's database "cms": give a new one/)
  } finally {
    rmSync(path.dirname(restoredDir), { recursive: true, force: true })
  }
}
