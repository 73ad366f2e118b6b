import { byPosition, diagnostic, rangeOn, type PrdDiagnostic } from '../diagnostics';
import { readFrontmatter } from '../frontmatter';
import { PRD_LIMITS, sizeText } from '../limits';
import { splitLines } from '../lines';
import { outline } from '../outline';
import { readMeta } from '../pai-v2';
import { readFeatures, readFog, readLanguage } from './blocks';
import { isaSectionKind, readClaims } from './claims';
import type { IsaDocument, IsaSection } from './model';
import { readStrategy } from './strategy';

/**
 * Reads an ISA. Never throws: what cannot be read becomes a diagnostic, and the text is kept
 * line for line in `source`, so `joinLines(doc.source)` is the same bytes.
 */
export function parseIsa(text: string): IsaDocument {
  const source = splitLines(text);
  const diagnostics: PrdDiagnostic[] = [];
  if (text.length > PRD_LIMITS.maxChars) {
    const message = `this file is ${sizeText(text.length)}, over the ${sizeText(PRD_LIMITS.maxChars)} an ISA may have, and is not read; split it`;
    return { format: 'isa', source, meta: {}, sections: [], claims: [], probes: [], features: [], fog: [], language: [], diagnostics: [diagnostic('error', 'prd-too-large', rangeOn(0, 0), message)], structural: source.lines.map(() => false) };
  }
  const lines = source.lines.map((l, i) => {
    if (l.text.length <= PRD_LIMITS.maxLineChars) return l;
    diagnostics.push(diagnostic('error', 'line-too-long', rangeOn(i, 0, 1), `this line is ${sizeText(l.text.length)}, over the ${sizeText(PRD_LIMITS.maxLineChars)} a line may have, and is not read; break it up`));
    return { text: '', eol: l.eol };
  });
  const frontmatter = readFrontmatter(lines, diagnostics);
  const { structural, headings, unclosed } = outline(lines, frontmatter ? frontmatter.close + 1 : 0);
  for (const u of unclosed) {
    diagnostics.push(diagnostic('warning', 'unclosed-block', rangeOn(u.line, 0, lines[u.line]!.text.length), `this ${u.what === 'fence' ? 'code block' : 'HTML comment'} is never closed, so nothing after it is read; close it`));
  }
  const sections: IsaSection[] = [];
  headings.forEach((h, k) => {
    if (h.level !== 2) return;
    const next = headings.slice(k + 1).find((x) => x.level <= 2);
    sections.push({ kind: isaSectionKind(h.text), heading: h.text, line: h.line, end: next ? next.line : lines.length });
  });
  const title = headings.find((h) => h.level === 1 && h.line < (sections[0]?.line ?? lines.length));
  const claims = readClaims(lines, structural, headings, sections, diagnostics);
  const probes = readStrategy(lines, structural, sections.find((s) => s.kind === 'test-strategy'), diagnostics);
  const features = readFeatures(lines, structural, headings, sections, claims);
  const data = frontmatter?.data ?? {};
  const goal = data.principal_stated_goal;
  if (!sections.some((s) => s.kind === 'claims' || s.kind === 'features')) {
    diagnostics.push(diagnostic('warning', 'missing-section', rangeOn(0, 0), 'no "## Claims" (or "## Criteria") section; claims are read only under it'));
  }
  return {
    format: 'isa',
    source,
    ...(frontmatter ? { frontmatter } : {}),
    meta: readMeta(frontmatter?.data ?? {}),
    ...(title ? { title: { text: title.text, line: title.line } } : {}),
    sections,
    claims,
    probes,
    features,
    fog: readFog(lines, structural, sections),
    language: readLanguage(lines, structural, sections),
    ...(typeof goal === 'string' || goal === null ? { principalStatedGoal: goal } : {}),
    ...(typeof data.frozen === 'boolean' ? { frozen: data.frozen } : {}),
    diagnostics: diagnostics.sort(byPosition),
    structural,
  };
}
