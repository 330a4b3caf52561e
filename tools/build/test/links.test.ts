import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'tools/check/links.mjs');

/** Runs the check as CI does (a real node process) on one root folder. */
function run(dir: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [script, dir], { cwd: root, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A small repository: README.md and docs/ pages whose links are all good, plus whatever the case adds or replaces. */
function fixture(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'links-'));
  const all: Record<string, string> = {
    'README.md': [
      '# Product',
      '',
      'Read [the guide](docs/guide.md), its [second part](docs/guide.md#wallet-page-wallet) and',
      '[the same heading again](docs/guide.md#setup-1); see [below](#two-commands), the [tools](tools/) and',
      '[upstream](https://example.org/a?b=c#d) or <https://example.com>. `[not a link](nowhere.md)`',
      '',
      '## Two commands',
      '',
      '```sh',
      'echo "[also not a link](missing.md)"',
      '```',
    ].join('\n'),
    'docs/guide.md': [
      '# Guide',
      '',
      '## Wallet page (`/wallet`)',
      '',
      '## Setup',
      '',
      '## Setup',
      '',
      '<img src="pic.png" alt="a picture"> [back](../README.md#product), [an id](#custom)',
      '<a id="custom"></a>',
    ].join('\n'),
    'docs/pic.png': 'png',
    'tools/x.txt': 'x',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('docs link check (tools/check/links.mjs)', () => {
  it('passes on the repository: every relative link and anchor of its Markdown pages resolves', () => {
    const r = run(root);
    expect(r.out).not.toMatch(/: (no such file|no heading|malformed|unsupported|empty)/);
    expect(r.out).toMatch(/, 0 broken\n$/);
    expect(r.status).toBe(0);
  });

  it('passes on pages whose links, anchors (numbered duplicates, inline code, id attributes) and images all resolve', () => {
    const dir = fixture();
    try {
      const r = run(dir);
      expect(r.out).toBe('2 page(s), 10 link(s), 0 broken\n');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails on a link to a missing page and on an anchor no heading makes, naming each with its line', () => {
    const dir = fixture({
      'docs/broken.md': ['# Broken', '', 'See [the old page](old-page.md).', '', 'And [setup](guide.md#set-up) too.'].join('\n'),
    });
    try {
      const r = run(dir);
      expect(r.status).toBe(1);
      expect(r.out).toContain('docs/broken.md:3: no such file or folder: old-page.md');
      expect(r.out).toContain('docs/broken.md:5: no heading or id "#set-up" in docs/guide.md: guide.md#set-up');
      expect(r.out).toMatch(/, 2 broken\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks every Markdown page of the repository, and repository paths written in inline code', () => {
    const dir = fixture({
      'deploy/k8s/README.md': [
        '# Kubernetes',
        '',
        'Follow `docs/upgrades.md`, read `docs/guide.md` and `tools/x.txt`, not `docs/*.md` or `docs/<page>.md`.',
        'Back to [the guide](../../docs/guide.md).',
      ].join('\n'),
    });
    try {
      const r = run(dir);
      expect(r.status).toBe(1);
      expect(r.out).toContain('deploy/k8s/README.md:3: no such file or folder (in code): docs/upgrades.md');
      expect(r.out).not.toContain('docs/guide.md (in code)');
      expect(r.out).not.toContain('docs/*.md');
      expect(r.out).toMatch(/^3 page\(s\), .* 1 broken\n$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails on a missing anchor in the same page and on a malformed external link', () => {
    const dir = fixture({
      'docs/self.md': ['# Self', '', 'Jump [down](#nowhere); [site](https://); [ftp](ftp://example.org).'].join('\n'),
    });
    try {
      const r = run(dir);
      expect(r.status).toBe(1);
      expect(r.out).toContain('docs/self.md:3: no heading or id "#nowhere" in this page: #nowhere');
      expect(r.out).toContain('docs/self.md:3: unsupported link scheme "ftp:": ftp://example.org');
      expect(r.out).toContain('docs/self.md:3: malformed URL: https://');
      expect(r.out).toMatch(/, 3 broken\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("makes anchors by GitHub's slug rules: punctuation and symbols dropped, case folded, any script kept", () => {
    const headings: Record<string, string> = {
      'Channels: who may use each, how it is proven, what a stolen credential opens':
        'channels-who-may-use-each-how-it-is-proven-what-a-stolen-credential-opens',
      'Trust: `X-Platform`': 'trust-x-platform',
      'Conformance with @grpc/grpc-js': 'conformance-with-grpcgrpc-js',
      'Глоссарий и id_name': 'глоссарий-и-id_name',
      '**Bold** and 100× load': 'bold-and-100-load',
    };
    const dir = fixture({
      'docs/slugs.md': ['# Slugs', ...Object.keys(headings).map((h) => `\n## ${h}`)].join('\n'),
      'docs/to-slugs.md': Object.values(headings)
        .map((anchor) => `[x](slugs.md#${encodeURIComponent(anchor)})`)
        .join('\n'),
    });
    try {
      const r = run(dir);
      expect(r.out).toBe('4 page(s), 15 link(s), 0 broken\n');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
