import { Workbench } from '../harness/workbench.mjs';

/**
 * What every e2e suite needs: a fresh workbench opened before its tests and closed after
 * them, and, when a test fails, a screenshot and the server and extension-host logs under
 * test-results/e2e/<test title>/. Returns the suite's workbench (usable inside tests).
 */
export function useWorkbench(options) {
  let current;
  before(async () => {
    current = await Workbench.open(options);
  });
  after(async () => {
    await current?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && current) {
      const dir = await current.saveFailureArtifacts(this.currentTest.fullTitle());
      console.log(`      artifacts: ${dir}`);
    }
  });
  return new Proxy(
    {},
    {
      get(_, key) {
        if (!current) throw new Error('the workbench is opened in before(); use it inside tests');
        const value = current[key];
        return typeof value === 'function' ? value.bind(current) : value;
      },
    },
  );
}
