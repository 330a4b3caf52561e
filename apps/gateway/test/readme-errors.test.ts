import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERRORS } from '@wordgame/contracts';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

/** The README's paragraph that starts with `heading`, up to the next blank line. */
function paragraph(heading: string): string {
  const start = README.indexOf(heading);
  if (start < 0) throw new Error(`README has no paragraph starting ${heading}`);
  return README.slice(start, README.indexOf('\n\n', start));
}

/** The README's error paragraphs (REST, game): code -> the status it is listed under (`invalid_*` stands for every invalid_ code). */
function documented(): Map<string, number> {
  const listed = new Map<string, number>();
  let status = 0;
  for (const token of [paragraph('**Error codes**'), paragraph('Game errors:')]
    .join(' ; ')
    .matchAll(/(?:^|[\s;:])(\d{3})(?=\s+`)|`([a-z_*]+)`/g)) {
    if (token[1]) status = Number(token[1]);
    else if (token[2] && status > 0 && !listed.has(token[2])) listed.set(token[2], status);
  }
  return listed;
}

describe('README error table', () => {
  it('lists every error code the REST edge answers (client and edge codes of the registry) under its HTTP status', () => {
    const listed = documented();
    const rest = Object.entries(ERRORS).filter(([, spec]) => spec.audience !== 'service');
    const problems = rest.flatMap(([code, { http: status }]) => {
      const at = listed.get(code) ?? (code.startsWith('invalid_') ? listed.get('invalid_*') : undefined);
      if (at === undefined) return [`${code} (${status}) is missing`];
      return at === status ? [] : [`${code} is listed under ${at}, answers ${status}`];
    });
    expect(problems).toEqual([]);
  });
});
