/**
 * The part of GitHub's workflow syntax a written schedule uses, as a JSON schema: a subset of
 * SchemaStore's `github-workflow.json` (https://json.schemastore.org/github-workflow.json,
 * draft-07), which is not installed on this machine, checked against the syntax reference
 * (https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions).
 * Kept strict where SchemaStore is (no unknown key at the top, in a job, a step or a strategy),
 * so a misspelled key, a job without `runs-on`, a step with both `uses` and `run`, or a
 * schedule without `cron` fails.
 */
const NAME = '^[_a-zA-Z][a-zA-Z0-9_-]*$';
const EXPRESSION = '^\\$\\{\\{(.|[\\r\\n])*\\}\\}$';
const stringMap = { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] }, minProperties: 1 };
const permissionsLevel = { type: 'string', enum: ['read', 'write', 'none'] };
const permissions = {
  oneOf: [
    { type: 'string', enum: ['read-all', 'write-all'] },
    {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(['actions', 'attestations', 'checks', 'contents', 'deployments', 'discussions', 'id-token', 'issues', 'models', 'packages', 'pages', 'pull-requests', 'repository-projects', 'security-events', 'statuses'].map((k) => [k, permissionsLevel])),
    },
  ],
};
const eventObject = { oneOf: [{ type: 'object' }, { type: 'null' }] };

const step = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    if: { type: ['boolean', 'number', 'string'] },
    name: { type: 'string' },
    uses: { type: 'string' },
    run: { type: 'string' },
    'working-directory': { type: 'string' },
    shell: { type: 'string' },
    with: stringMap,
    env: stringMap,
    'continue-on-error': { type: ['boolean', 'string'] },
    'timeout-minutes': { type: ['number', 'string'] },
  },
  dependencies: { 'working-directory': ['run'], shell: ['run'] },
  oneOf: [{ required: ['uses'] }, { required: ['run'] }],
};

const normalJob = {
  type: 'object',
  required: ['runs-on'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    needs: { oneOf: [{ type: 'string', pattern: NAME }, { type: 'array', items: { type: 'string', pattern: NAME }, minItems: 1 }] },
    permissions,
    'runs-on': { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }, { type: 'object' }] },
    environment: { type: ['string', 'object'] },
    outputs: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 },
    env: stringMap,
    if: { type: ['boolean', 'number', 'string'] },
    steps: { type: 'array', items: step, minItems: 1 },
    'timeout-minutes': { type: ['number', 'string'] },
    strategy: {
      type: 'object',
      required: ['matrix'],
      additionalProperties: false,
      properties: {
        matrix: {
          oneOf: [
            { type: 'object', patternProperties: { '^(in|ex)clude$': { type: 'array', items: { type: 'object' }, minItems: 1 } }, additionalProperties: { type: 'array', minItems: 1 }, minProperties: 1 },
            { type: 'string', pattern: EXPRESSION },
          ],
        },
        'fail-fast': { type: ['boolean', 'string'] },
        'max-parallel': { type: ['number', 'string'] },
      },
    },
    'continue-on-error': { type: ['boolean', 'string'] },
  },
};

export const GITHUB_WORKFLOW_SUBSET = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['on', 'jobs'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    'run-name': { type: 'string' },
    on: {
      type: 'object',
      minProperties: 1,
      properties: {
        schedule: { type: 'array', minItems: 1, items: { type: 'object', required: ['cron'], additionalProperties: false, properties: { cron: { type: 'string' } } } },
        workflow_dispatch: eventObject,
        push: eventObject,
        pull_request: eventObject,
      },
      additionalProperties: false,
    },
    env: stringMap,
    permissions,
    concurrency: { type: ['string', 'object'] },
    jobs: { type: 'object', minProperties: 1, patternProperties: { [NAME]: normalJob }, additionalProperties: false },
  },
};
