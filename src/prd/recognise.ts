import type { PrdDocument } from './model';

/** A markdown file whose frontmatter says `prd: true`, or one in PAI v2's PRD format. */
export function isPrdDocument(doc: PrdDocument): boolean {
  const fm = doc.frontmatter;
  if (!fm) return false;
  if (fm.data.prd === true || doc.dialect === 'pai-v2') return true;
  // Broken YAML leaves no data; the line still says what the file is meant to be.
  return !fm.ok && doc.source.lines.slice(fm.open + 1, fm.close).some((l) => /^prd:\s*true\s*(#.*)?$/.test(l.text));
}
