import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/front-door.ts';

// A clone must explain itself: what the code relies on is written in the project's own docs/,
// and nothing cites a document or a path that only existed on the machine it was written on
// (docs/architecture.md, "Conventions the code relies on"). The patterns are spelled in pieces
// so that this file does not cite what it forbids.
const OUTSIDE: { pattern: RegExp; why: string }[] = [
  {
    pattern: new RegExp('DESIGN' + '(\\.md)?\\s*§|DESIGN' + '\\.md'),
    why: 'cites the design guide',
  },
  { pattern: new RegExp('shared' + '/(spec|notes)/'), why: 'cites a shared reference file' },
  { pattern: /(^|[^\w.])\.\.\/shared\//, why: 'a path outside the repository' },
  {
    pattern: new RegExp('(^|[\\s`\'"(=:])/(' + 'work|home|Users|root|tmp/bash_jobs' + ')/'),
    why: 'an absolute path of a build machine',
  },
  { pattern: new RegExp('fact sheet' + ' §'), why: 'cites a fact sheet without naming its file' },
];

/** A cited `docs/<file>`, which must exist. */
const DOC_CITATION = /\bdocs\/([\w-]+\.(?:md|json))/g;
const ORIGIN_SECTION = /docs\/origin-profile\.md §(\d+)/g;

interface Finding {
  file: string;
  line: number;
  why: string;
  text: string;
}

/** What in `text` (the contents of `file`) points outside the repository. */
function outsideCitations(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  text.split('\n').forEach((line, index) => {
    const hit = OUTSIDE.find(({ pattern }) => pattern.test(line));
    if (hit) findings.push({ file, line: index + 1, why: hit.why, text: line.trim() });
  });
  return findings;
}

/** Cited docs that do not exist, and origin-profile sections it does not have. */
function brokenDocCitations(file: string, text: string, sections: Set<string>): Finding[] {
  const findings: Finding[] = [];
  text.split('\n').forEach((line, index) => {
    for (const [, name] of line.matchAll(DOC_CITATION)) {
      if (!existsSync(join(repoRoot, 'docs', name!))) {
        findings.push({ file, line: index + 1, why: `no docs/${name}`, text: line.trim() });
      }
    }
    for (const [, n] of line.matchAll(ORIGIN_SECTION)) {
      if (!sections.has(n!)) {
        findings.push({ file, line: index + 1, why: `no section ${n}`, text: line.trim() });
      }
    }
  });
  return findings;
}

/** Tracked and new (not ignored) text files of the repository. */
function repositoryTextFiles(): { file: string; text: string }[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return listed
    .split('\0')
    .filter((file) => file && existsSync(join(repoRoot, file)))
    .map((file) => ({ file, text: readFileSync(join(repoRoot, file), 'utf8') }))
    .filter(({ text }) => !text.includes('\0'));
}

describe('the repository stands on its own', () => {
  it('recognises citations of what a clone does not have', () => {
    const sample = [
      'ok: docs/protocol.md, Errors; RFC 8785 §3.2.2; /api/swarm/admin/users/root/suspension',
      `see ${'DESIGN'} §3`,
      `(${'DESIGN'}.md §1)`,
      `from ../${'shared'}/spec/origin-profile.md §5`,
      `built from /${'work'}/shared/x.md`,
      `(${'fact sheet'} §2)`,
    ].join('\n');
    expect(outsideCitations('sample.ts', sample).map((f) => f.line)).toEqual([2, 3, 4, 5, 6]);
  });

  it('no tracked file cites the design guide, a shared reference or a path outside it', () => {
    const files = repositoryTextFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(({ file, text }) => outsideCitations(file, text))).toEqual([]);
  });

  it('every cited docs/ file exists, and every cited section of docs/origin-profile.md', () => {
    const origin = readFileSync(join(repoRoot, 'docs/origin-profile.md'), 'utf8');
    const sections = new Set([...origin.matchAll(/^## (\d+)\. /gm)].map(([, n]) => n!));
    expect(sections.size).toBeGreaterThan(0);
    const findings = repositoryTextFiles().flatMap(({ file, text }) =>
      brokenDocCitations(file, text, sections),
    );
    expect(findings).toEqual([]);
  });
});
