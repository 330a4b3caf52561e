import { Code } from '@connectrpc/connect';
import { undescribedVariables } from '@wordgame/config';
import { ERRORS } from '@wordgame/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_SOURCES } from '../docs/config.js';
import { errorProblems, renderErrors } from '../docs/errors.js';
import { serviceMetrics } from '../docs/metrics.js';
import { renderReferences } from '../docs/reference.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Every non-test TypeScript file under `dir` (relative to the root). */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(dir, f));
}

describe('generated references', () => {
  it('match the code (run npm run docs:reference when this fails)', async () => {
    const drifted: string[] = [];
    for (const [path, content] of await renderReferences(root)) {
      let committed: string | undefined;
      try {
        committed = readFileSync(join(root, path), 'utf8');
      } catch {
        committed = undefined;
      }
      if (committed !== content) drifted.push(`${path} differs from the code: run npm run docs:reference`);
    }
    expect(drifted).toEqual([]);
  });

  it('describe every variable of every config schema (the schema is the only place a variable is explained)', () => {
    const undescribed = CONFIG_SOURCES.flatMap(({ source, schema }) => undescribedVariables(schema).map((v) => `${source}: ${v}`));
    expect(undescribed).toEqual([]);
  });

  it('give every error code an HTTP error status, a Connect code and a message', () => {
    expect(errorProblems(ERRORS)).toEqual([]);
  });

  it('refuse to render an error code without an error status', () => {
    const broken = { ...ERRORS, teapot: { connect: Code.Internal, http: 200, message: 'no status', audience: 'edge' as const } };
    expect(errorProblems(broken)).toEqual(['teapot: HTTP status 200 is not an error status']);
    expect(() => renderErrors(broken)).toThrow(/teapot: HTTP status 200 is not an error status/);
  });

  it('list every metric family the services construct', async () => {
    const listed = new Set((await serviceMetrics()).flatMap((s) => s.families.map((f) => f.name)));
    const constructed = ['apps', 'libs']
      .flatMap((top) => readdirSync(join(root, top)).map((p) => `${top}/${p}/src`))
      .flatMap((dir) => {
        try {
          return sources(dir);
        } catch {
          return [];
        }
      })
      .flatMap((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        const names = [
          ...text.matchAll(/new (?:Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\{\s*name:\s*'([^']+)'/g),
          ...text.matchAll(/new (?:SeriesHistogram|MethodCounter)\(\s*'([^']+)'/g),
        ].map((m) => ({ file, name: m[1] ?? '' }));
        // A construction whose name this scan cannot read would escape the check: count them all.
        const constructions = text.match(/new (?:Counter|Gauge|Histogram|Summary|SeriesHistogram|MethodCounter)\b/g) ?? [];
        return constructions.length === names.length ? names : [{ file, name: '(a metric whose name is not a literal)' }];
      });
    expect(constructed.length).toBeGreaterThan(20);
    expect(constructed.filter(({ name }) => !listed.has(name)).map(({ file, name }) => `${name} (${file})`)).toEqual([]);
  });
});
