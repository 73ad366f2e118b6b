import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { EffortLevel } from '../../model';
import type { CriterionJudge } from '../../verify/types';
import { engine } from '../engine';
import type { ModelsHost } from '../models/models-host';

/** Where a verification outside a run (Verify Criteria, the Testing view, re-verify) gets its CUSTOM judge. */
export interface JudgeSource {
  judge(level: EffortLevel, folder: vscode.WorkspaceFolder): Promise<CriterionJudge | undefined>;
}

/**
 * The same judge a run's VERIFY uses (src/app/judge.ts): the verifier role — the
 * workspace's `.ideal-state/roles/verifier.yaml` in a trusted workspace — asked through the
 * models a run at this level would use, held to that level's budget, each verdict's cost in
 * the log. With no model available there is no judge, and CUSTOM criteria are UNKNOWN
 * saying so.
 */
export class RunJudgeSource implements JudgeSource {
  constructor(
    private readonly models: ModelsHost,
    private readonly log: Logger,
  ) {}

  async judge(level: EffortLevel, folder: vscode.WorkspaceFolder): Promise<CriterionJudge | undefined> {
    const e = engine();
    const file = `${e.WORKSPACE_ROLES_DIR}/verifier.yaml`;
    const text = vscode.workspace.isTrusted ? await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, file)).then((b) => new TextDecoder().decode(b), () => undefined) : undefined;
    const roles = e.loadRoles(text === undefined ? [] : [{ file, text }]);
    for (const p of roles.problems) this.log.warn(e.formatProblem(p));
    const { router } = await this.models.forRun(level);
    try {
      return new e.VerifierJudge(router, roles.roles.verifier, level, (usage) => {
        const cost = usage.priced ? `$${usage.costUsd.toFixed(4)}` : 'cost unknown';
        this.log.info(`judge ${usage.model}: ${usage.inputTokens} in, ${usage.outputTokens} out, ${cost}`);
      });
    } catch (error) {
      this.log.info(`no model can judge CUSTOM criteria now: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
}
