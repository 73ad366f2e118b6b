// Each e2e suite registers this: a failed test leaves a screenshot and the server and
// extension-host logs under test-results/e2e/<test title>/.
export function keepArtifactsOnFailure(getWorkbench) {
  afterEach(async function () {
    const workbench = getWorkbench();
    if (this.currentTest?.state === 'failed' && workbench) {
      const dir = await workbench.saveFailureArtifacts(this.currentTest.fullTitle());
      console.log(`      artifacts: ${dir}`);
    }
  });
}
