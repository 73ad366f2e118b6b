import { frontmatterStart } from './frontmatter';
import { splitLines } from './lines';
import type { PrdDocument } from './model';

/** A markdown file whose frontmatter says `prd: true`, or one in PAI v2's PRD format. */
export function isPrdDocument(doc: PrdDocument): boolean {
  const fm = doc.frontmatter;
  if (!fm) return false;
  if (fm.data.prd === true || doc.dialect === 'pai-v2') return true;
  // Broken YAML leaves no data; the line still says what the file is meant to be.
  return !fm.ok && doc.source.lines.slice(fm.open + 1, fm.close).some((l) => /^prd:\s*true\s*(#.*)?$/.test(l.text));
}

export type RequirementFormat = 'isa' | 'prd';

const ISA_FILE = /(?:^|[\\/])ISA(?:\.[^\\/]*)?\.md$/i;
const PRD_MARK = /^prd[ \t]*:[ \t]*true[ \t]*(?:#.*)?$/m;
const ISA_HEADING = /^ {0,3}##[ \t]+(?:Claims|Test Strategy|Anti-claims|Bridge Criteria|Not yet specified)\b/im;
const ISA_CLAIM = /^[ \t]*[-*+][ \t]+\[[ xX]\][ \t]+(?:ISC-\d+(?:\.\d+)+|(?!ISC-)[A-Z]{1,4}-?\d+(?:\.\d+)*)[ \t]*(?::|—|–)/m;
/** `ISC-4: Anti: …`: an anti-claim numbered in the one pool (LifeOS v5.5+); PAI's PRD wrote `ISC-A-1`. */
const ISA_ANTI = /^[ \t]*[-*+][ \t]+\[[ xX]\][ \t]+ISC-\d+(?:\.\d+)*[ \t]*(?::|—|–)[ \t]*Anti[ \t]*:/m;
/** Frontmatter keys only the ISA has (ISAFormat v2.x): PAI's PRD never wrote them. */
const ISA_KEY = /^(?:principal_stated_goal|frozen|effort_source|resumed_from_phase|resumed_at|frame_drift|density_score|capabilities_invoked)[ \t]*:/m;

/**
 * Which reader a requirements file needs: PAI's ISA (LifeOS ISAFormat v2.x) or a PRD (the
 * this product's format or PAI v3.7's PRD v2.0, which parsePrd reads). `prd: true` always means a
 * PRD; a file named ISA.md, an ISA-only frontmatter key (`principal_stated_goal`, `frozen`,
 * `effort_source`, …), an ISA-only section (`## Claims`, `## Test Strategy`, …) or an
 * ISA-only id (`ISC-2.1`, `C1`, `A3`, `ISC-4: Anti:`) means an ISA. The frontmatter may come
 * after blank lines and HTML comments, as it does in LifeOS's own examples.
 */
export function recogniseFormat(text: string, fileName?: string): RequirementFormat {
  const fields = frontmatterText(text.slice(0, 16_384));
  if (fields !== undefined && PRD_MARK.test(fields)) return 'prd';
  if (fileName && ISA_FILE.test(fileName)) return 'isa';
  if (fields !== undefined && ISA_KEY.test(fields)) return 'isa';
  return ISA_HEADING.test(text) || ISA_CLAIM.test(text) || ISA_ANTI.test(text) ? 'isa' : 'prd';
}

/** The lines between a file's frontmatter fences (the head of the file is enough), or undefined. */
function frontmatterText(head: string): string | undefined {
  const lines = splitLines(head).lines;
  const open = frontmatterStart(lines);
  if (open < 0) return undefined;
  const close = lines.findIndex((l, i) => i > open && /^(?:---|\.\.\.)[ \t]*$/.test(l.text));
  return lines.slice(open + 1, close < 0 ? lines.length : close).map((l) => l.text).join('\n');
}
