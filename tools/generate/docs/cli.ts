import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { renderReferences } from './reference.js';

/**
 * `npm run docs:reference`: writes docs/reference/*.md from the code (config schemas, error
 * registry, API document, metrics registries, alert rules). `--check` writes nothing and exits 1
 * naming each page that differs, as CI runs it.
 */
const root = resolve(import.meta.dirname, '../../..');
const check = process.argv.includes('--check');
const drifted: string[] = [];
for (const [path, content] of await renderReferences(root)) {
  const file = join(root, path);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  drifted.push(path);
  if (!check) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}
if (check && drifted.length > 0) {
  process.stderr.write(`generated references differ from the code (run npm run docs:reference and commit): ${drifted.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(drifted.length === 0 ? 'references up to date\n' : `wrote ${drifted.join(', ')}\n`);
