import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS, isErrorCode } from '@wordgame/contracts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
/** The one place that turns failures into coded ConnectErrors. */
const EDGE = 'server/interceptors.ts';

async function sources(): Promise<{ file: string; text: string }[]> {
  const entries = await readdir(SRC, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map(async (f) => ({ file: path.relative(SRC, f).split(path.sep).join('/'), text: await readFile(f, 'utf8') })));
}

/** Code literals at throw sites: `new DomainError('x'`, a factory `paymentError('x'`, a refusal table entry `x: ['x', '...']`, a code-typed default `ErrorCode = 'x'`. */
const THROWN = /(?:new DomainError|paymentError)\(\s*'([a-z0-9_]+)'|\b([a-z0-9_]+): \['\2', '|ErrorCode = '([a-z0-9_]+)'/g;

describe('the backend raises only registry codes, through one edge', () => {
  it('every code literal at a throw site is a registry code the backend may raise (client or service)', async () => {
    const found = new Map<string, string>();
    for (const { file, text } of await sources()) for (const m of text.matchAll(THROWN)) found.set(m[1] ?? m[2] ?? m[3] ?? '', file);
    expect(found.size).toBeGreaterThan(60);
    const bad = [...found].filter(([code]) => !isErrorCode(code) || ERRORS[code].audience === 'edge');
    expect(bad).toEqual([]);
  });

  it('builds no ConnectError, writes no error header name and keeps no code table outside the edge', async () => {
    const offenders = (await sources()).flatMap(({ file, text }) => {
      if (file === EDGE) return [];
      const why = [
        /new ConnectError\(/.test(text) && 'constructs a ConnectError',
        /\b(codedConnectError|toConnectError)\b/.test(text) && 'encodes errors itself',
        /'x-(error-code|retry-after|hint-unlock-left-seconds)'/.test(text) && 'spells an error header name',
        /satisfies Record<string, Code>/.test(text) && 'keeps a code table',
      ].filter((w): w is string => typeof w === 'string');
      return why.map((w) => `${file} ${w}`);
    });
    expect(offenders).toEqual([]);
  });
});
