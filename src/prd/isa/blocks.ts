import type { SourceLine } from '../lines';
import type { Heading } from '../outline';
import type { IsaClaim, IsaFeature, IsaFog, IsaSection, IsaTerm } from './model';

/** `F1 · Billing`, `F0 - Cross-cutting`, `F2: Export` (the spec writes a middle dot). */
const FEATURE_HEADING = /^F(\d+)[ \t]*(?:·|•|—|–|-|:|\.)[ \t]*(\S.*)$/;
const WHY = /^[ \t]*[*_]{0,2}Why[*_]{0,2}[ \t]*:[*_]{0,2}[ \t]*(.*)$/i;
const TERM = /^[ \t]*\*\*([^*]+)\*\*[ \t]*:/;
const HEADING = /^ {0,3}#{1,6}[ \t]/;

/**
 * The feature blocks of `## Features` (ISAFormat v2.16): each `### F<n> · <name>` heading, its
 * `Why:` line and the claims under it. Sets each claim's `feature`. The older pointer table
 * (`name | satisfies: [ISC-N]`, or the same as YAML) has no `### F<n>` heading and gives none.
 */
export function readFeatures(lines: readonly SourceLine[], structural: readonly boolean[], headings: readonly Heading[], sections: readonly IsaSection[], claims: IsaClaim[]): IsaFeature[] {
  const features: IsaFeature[] = [];
  for (const section of sections.filter((s) => s.kind === 'features')) {
    const blocks = headings.filter((h) => h.level === 3 && h.line > section.line && h.line < section.end);
    blocks.forEach((h, k) => {
      const m = FEATURE_HEADING.exec(h.text.trim());
      if (!m) return;
      const end = blocks[k + 1]?.line ?? section.end;
      const feature: IsaFeature = { id: `F${m[1]}`, name: m[2]!.trim(), line: h.line, claims: [] };
      for (let i = h.line + 1; i < end; i++) {
        if (!structural[i]) continue;
        const why = WHY.exec(lines[i]!.text);
        if (why && why[1]!.trim()) {
          feature.why = why[1]!.replace(/[*_]+$/, '').trim();
          break;
        }
      }
      for (const c of claims) {
        if (c.line > h.line && c.line < end) {
          c.feature = feature.id;
          feature.claims.push(c.id);
        }
      }
      features.push(feature);
    });
  }
  return features;
}

/**
 * The fog of `## Not yet specified` (ISAFormat v2.14): every line of it that says something,
 * as LifeOS's ISAGate counts them (comments, blank lines and sub-headings left out). Fog is
 * honest while climbing; at `phase: complete` it must be empty.
 */
export function readFog(lines: readonly SourceLine[], structural: readonly boolean[], sections: readonly IsaSection[]): IsaFog[] {
  const fog: IsaFog[] = [];
  for (const section of sections.filter((s) => s.kind === 'fog')) {
    for (let i = section.line + 1; i < section.end; i++) {
      const text = lines[i]!.text.trim();
      if (!structural[i] || text === '' || HEADING.test(lines[i]!.text) || text.startsWith('<!--')) continue;
      fog.push({ line: i, text });
    }
  }
  return fog;
}

/** The terms of `## Language` (ISAFormat v2.18): `**Term**: what it means`, then `_Avoid_: …`. */
export function readLanguage(lines: readonly SourceLine[], structural: readonly boolean[], sections: readonly IsaSection[]): IsaTerm[] {
  const terms: IsaTerm[] = [];
  for (const section of sections.filter((s) => s.kind === 'language')) {
    for (let i = section.line + 1; i < section.end; i++) {
      const m = structural[i] ? TERM.exec(lines[i]!.text) : null;
      if (m) terms.push({ term: m[1]!.trim(), line: i });
    }
  }
  return terms;
}
