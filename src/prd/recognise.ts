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

/**
 * Which reader a requirements file needs: PAI's ISA (LifeOS ISAFormat v2.x) or a PRD (the
 * seed's format or PAI v3.7's PRD v2.0, which parsePrd reads). `prd: true` always means a
 * PRD; a file named ISA.md, an ISA-only section (`## Claims`, `## Test Strategy`, …) or an
 * ISA-only id (`ISC-2.1`, `C1`, `A3`) means an ISA.
 */
export function recogniseFormat(text: string, fileName?: string): RequirementFormat {
  const head = text.slice(0, 4096);
  if (head.startsWith('---') && PRD_MARK.test(head.slice(0, head.indexOf('\n---', 3) + 1 || head.length))) return 'prd';
  if (fileName && ISA_FILE.test(fileName)) return 'isa';
  return ISA_HEADING.test(text) || ISA_CLAIM.test(text) ? 'isa' : 'prd';
}
