// Mocha's spec reporter that also writes the counts to $IDEAL_STATE_TALLY, so
// test/run-all.mjs can add up tiers without parsing output.
const fs = require('node:fs');
const Mocha = require('mocha');

class TallyReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const { passes = 0, failures = 0, pending = 0 } = this.stats;
      if (process.env.IDEAL_STATE_TALLY) {
        fs.writeFileSync(process.env.IDEAL_STATE_TALLY, JSON.stringify({ passed: passes, failed: failures, skipped: pending }));
      }
    });
  }
}

module.exports = TallyReporter;
