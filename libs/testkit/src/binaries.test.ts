import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumPath, findChromium, findNatsServer, findOnPath } from './binaries.js';

describe('test binary resolvers', () => {
  let root: string;
  const dir = (name: string) => {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const program = (folder: string, name: string, mode = 0o755) => {
    const path = join(dir(folder), name);
    writeFileSync(path, '#!/bin/sh\nexit 0\n');
    chmodSync(path, mode);
    return path;
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'binaries-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('CHROMIUM_PATH wins over a chromium on PATH', () => {
    const onPath = program('bin', 'chromium');
    const given = program('elsewhere', 'my-chrome');
    expect(findChromium({ PATH: join(root, 'bin'), CHROMIUM_PATH: given })).toBe(given);
    expect(findChromium({ PATH: join(root, 'bin') })).toBe(onPath);
  });

  it('a CHROMIUM_PATH that is not executable is an error, not a fall-back to PATH', () => {
    program('bin', 'chromium');
    const plain = program('elsewhere', 'not-a-program', 0o644);
    expect(() => findChromium({ PATH: join(root, 'bin'), CHROMIUM_PATH: plain })).toThrow(
      `CHROMIUM_PATH=${plain} is not an executable file`,
    );
    expect(() => findChromium({ PATH: join(root, 'bin'), CHROMIUM_PATH: join(root, 'missing') })).toThrow('is not an executable file');
  });

  it('takes the names in order (chromium before google-chrome, whichever folder comes first) and each name in PATH order', () => {
    const chrome = program('a', 'google-chrome');
    const chromium = program('b', 'chromium');
    const browser = program('c', 'chromium-browser');
    const PATH = [join(root, 'a'), join(root, 'b'), join(root, 'c')].join(':');
    expect(findChromium({ PATH })).toBe(chromium);
    expect(findChromium({ PATH: [join(root, 'a'), join(root, 'c')].join(':') })).toBe(browser);
    expect(findChromium({ PATH: join(root, 'a') })).toBe(chrome);
    const second = program('d', 'chromium');
    expect(findOnPath('chromium', { PATH: [join(root, 'd'), join(root, 'b')].join(':') })).toBe(second);
  });

  it('skips files without the execute bit, folders of that name and relative PATH entries', () => {
    program('a', 'chromium', 0o644);
    mkdirSync(join(dir('b'), 'chromium'));
    program('rel', 'chromium');
    expect(findChromium({ PATH: [join(root, 'a'), join(root, 'b'), 'rel', '', '.'].join(':') })).toBeUndefined();
  });

  it('with nothing to find, chromiumPath says how to provide one', () => {
    expect(findChromium({ PATH: '' })).toBeUndefined();
    expect(() => chromiumPath({ PATH: '' })).toThrow(
      'no Chromium: none of chromium, chromium-browser, google-chrome, google-chrome-stable is on PATH and CHROMIUM_PATH is unset (apt-get install chromium, or set CHROMIUM_PATH)',
    );
  });

  it('nats-server: NATS_SERVER, then PATH', () => {
    const onPath = program('bin', 'nats-server');
    const given = program('opt', 'nats');
    expect(findNatsServer({ PATH: join(root, 'bin'), NATS_SERVER: given })).toBe(given);
    expect(findNatsServer({ PATH: join(root, 'bin') })).toBe(onPath);
    expect(() => findNatsServer({ PATH: join(root, 'bin'), NATS_SERVER: join(root, 'none') })).toThrow('is not an executable file');
  });
});
