// Where this product's GitHub Action is (action.yml at the root of this repository), as a
// workflow's `uses:` names it: package.json's `repository` when it names a GitHub repository,
// else the product's own. One rule for the workflow `ideal-state schedule add --ci github`
// writes (src/app/schedule/workflow.ts) and the pin scripts/version.mjs --check holds
// docs/ci.md to. Plain CommonJS so that both the TypeScript build and the plain Node scripts
// load it as it is.
'use strict';

const DEFAULT_ACTION_REPOSITORY = 'ideal-state/ideal-state';

const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})';
const NAME = '[A-Za-z0-9._-]{1,100}?';
// npm's forms (https://docs.npmjs.com/cli/v10/configuring-npm/package-json#repository):
// "owner/repo", "github:owner/repo", or a URL (git+https, https, git, ssh) on github.com.
const FORMS = [
  new RegExp(`^(?:github:)?(${OWNER})/(${NAME})(?:\\.git)?$`),
  new RegExp(`^(?:git\\+)?(?:https?|git|ssh)://(?:git@)?github\\.com[/:](${OWNER})/(${NAME})(?:\\.git)?/?$`),
  new RegExp(`^git@github\\.com:(${OWNER})/(${NAME})(?:\\.git)?$`),
];

/**
 * `{ ok: true, repository: "owner/repo", from }` or `{ ok: false, message }` when package.json
 * names a repository that is not one on GitHub (a workflow cannot `uses:` it).
 */
function actionRepository(manifest) {
  const given = manifest && manifest.repository;
  const url = typeof given === 'string' ? given : given && typeof given.url === 'string' ? given.url : undefined;
  if (url === undefined) return { ok: true, repository: DEFAULT_ACTION_REPOSITORY, from: 'default' };
  for (const form of FORMS) {
    const m = form.exec(url.trim());
    if (m && m[2] !== '.' && m[2] !== '..') return { ok: true, repository: `${m[1]}/${m[2]}`, from: 'package.json' };
  }
  return { ok: false, message: `package.json's repository "${url}" is not a GitHub repository (owner/repo, github:owner/repo or a github.com URL), so no workflow can use its action` };
}

exports.DEFAULT_ACTION_REPOSITORY = DEFAULT_ACTION_REPOSITORY;
exports.actionRepository = actionRepository;
