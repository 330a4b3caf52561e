/**
 * The source files the checks of tools/check read: every .ts/.mts/.tsx file under a folder, tests
 * included, without .d.ts files, node_modules or generated code (`gen/`), in a stable order.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every .ts/.mts/.tsx source file under dir (no .d.ts, node_modules or gen/), sorted. */
export function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'gen') out.push(...sources(p));
    } else if (/\.(m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(p);
    }
  }
  return out.sort();
}
