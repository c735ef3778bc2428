// Mocha's spec reporter, plus one line per skipped test after the summary, which scripts/run-tests.mjs reads:
// a skip is allowed only for a MongoDB test (no MongoDB server can run on these machines, MONGODB_URI unset),
// so the runner needs each skipped test's full title (describe titles included), which spec does not print.
// Mocha loads a reporter file with require(): Node.js 20.19+ requires this ES module (its default export).
import Mocha from 'mocha'

export const SKIPPED_MARK = '[skipped test] '

export default class SkipReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    const skipped = []
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => skipped.push(test.fullTitle()))
    // Registered after spec's own run-end listener: these lines come after its "N pending" summary.
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      for (const title of skipped) process.stdout.write(`${SKIPPED_MARK}${title}\n`)
    })
  }
}
