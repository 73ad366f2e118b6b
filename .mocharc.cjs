// The unit tier's mocha options. The spec (every compiled unit test) applies only when no test
// file is named: mocha 12 adds a configured spec to the files given on its command line, so
// `npx mocha out/test/unit/app/gate/gate.test.js` would otherwise run the whole tier.
const named = process.argv.slice(2).some((arg) => /\.test\.[cm]?js$/.test(arg));

module.exports = {
  ...(named ? {} : { spec: 'out/test/unit/**/*.test.js' }),
  // Gate state in a folder of the run's own, never the user's (test/unit/support/state-folder.cjs).
  require: [require.resolve('./test/unit/support/state-folder.cjs')],
  timeout: 20000,
  reporter: 'spec',
  // `.only` is refused on every machine, not only under CI: it would run one test and call the tier green.
  forbidOnly: true,
};
