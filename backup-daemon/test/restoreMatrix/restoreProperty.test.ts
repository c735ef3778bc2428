/**
 * The restore matrix's long mode, opt-in: `RESTORE_MATRIX_RUNS=200 npx mocha --config ../.mocharc.json
 * test/restoreMatrix/restoreProperty.test.ts` backs up and restores (the real CLI, `run` then `restore --to`,
 * a `tar.gz` job on a local storage) one fast-check tree per run and compares it with its source, shrinking
 * a failure to its smallest tree. The seed is printed first (`RESTORE_MATRIX_SEED` repeats a run); keep every
 * failing case it finds as a fixed case (`everyShapeTree` in support/generatedTree.ts). Without
 * `RESTORE_MATRIX_RUNS` this file defines no test (CI runs the matrix's bounded trees instead).
 * `RESTORE_MATRIX_EXCLUDE=backslash,invalid-utf8` leaves out a name class whose bug is known, to look behind it.
 */
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDaemonYaml } from '../support/daemonYaml.js'
import { runCli } from '../support/runCli.js'
import { treeArb, withoutClasses } from './support/generatedTree.js'
import { diffTrees, readTree, writeTree } from './support/treeOnDisk.js'

const runs = Number(process.env.RESTORE_MATRIX_RUNS ?? 0)

if (runs > 0) {
  describe(`restore matrix, long mode: ${runs} generated trees backed up and restored by the CLI`, function () {
    this.timeout(0)
    it('restores every generated tree byte-exact (names, bytes, modes, mtimes, links, empty folders)', async () => {
      const seed = Number(process.env.RESTORE_MATRIX_SEED ?? Date.now() % 2 ** 31)
      console.log(`      restore matrix long mode: fast-check seed ${seed} (RESTORE_MATRIX_SEED=${seed} repeats it)`)
      const excluded = (process.env.RESTORE_MATRIX_EXCLUDE ?? '').split(',').filter(Boolean)
      const dir = mkdtempSync(join(tmpdir(), 'bd-matrix-long-'))
      const src = join(dir, 'src')
      const config = await writeDaemonYaml(
        dir,
        `  - { name: p, compression: tar.gz, sources: [{ type: local, name: files, path: ${JSON.stringify(src)} }], storages: [{ type: local, name: disk, path: ${JSON.stringify(join(dir, 'storage'))} }], retention: { last: 1 } }\n`,
      )
      try {
        await fc.assert(
          fc.asyncProperty(
            treeArb.map((tree) => withoutClasses(tree, excluded)),
            async (tree) => {
              rmSync(src, { recursive: true, force: true })
              const out = join(dir, 'out')
              rmSync(out, { recursive: true, force: true })
              writeTree(src, tree)
              const backup = await runCli(['run', 'p', '--config', config], { cwd: dir })
              if (backup.code !== 0) throw new Error(`run: ${backup.out.slice(-1500)}`)
              const snapshot = (await readdir(join(dir, 'storage', 'p')))
                .filter((name) => name.endsWith('.tar.gz'))
                .sort()
                .at(-1)!
              const restored = await runCli(['restore', 'p', snapshot, '--to', out, '--config', config], { cwd: dir })
              if (restored.code !== 0) throw new Error(`restore: ${restored.out.slice(-1500)}`)
              const differences = diffTrees(readTree(src), readTree(join(out, 'files')))
              if (differences.length > 0) throw new Error(`the restore differs:\n  ${differences.join('\n  ')}`)
            },
          ),
          { numRuns: runs, seed, endOnFailure: false },
        )
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}
