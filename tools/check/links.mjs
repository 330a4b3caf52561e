#!/usr/bin/env node
/**
 * Fails (exit 1) when a link in any Markdown page of the repository points nowhere: a relative link whose file
 * or folder does not exist, or a `#anchor` (in the same page or another Markdown page) that matches no
 * heading slug there, by GitHub's rules (lower case; punctuation and symbols dropped; spaces become
 * hyphens; a repeated slug gets -1, -2, ...), nor an `id`/`name` attribute. External links are only
 * syntax-checked (http, https or mailto, and a parseable URL with a host): CI has no internet.
 *
 * Read: inline links and images `[text](target)`, reference definitions `[name]: target`, `href=` and
 * `src=` attributes, and `<https://...>` autolinks; fenced code blocks are skipped. Inline code is not a
 * link, but a repository path written in it (`docs/operating/upgrades.md`) must exist too, read from the
 * repository root.
 * Headings are the ATX kind (`# Title`), the only kind these pages use.
 *
 * Usage: node tools/check/links.mjs [root]  (default: the repository this script is in). Prints one
 * line per problem (`file:line: ...`) and a summary line. Plain ESM without dependencies, like the
 * other checks CI runs before `npm ci` has to succeed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folders whose Markdown is not ours or not a page: dependencies, build output, run state. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.data', '.reports', '.git', 'coverage', 'gen']);

/** The Markdown files checked under root: every .md of the repository (README.md, docs/, each app's, tool's and deploy folder's). */
export function markdownFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(p);
      } else if (entry.name.endsWith('.md')) out.push(p);
    }
  };
  walk(root);
  return out;
}

/**
 * A repository path written as inline code (`docs/operating/upgrades.md`, `deploy/k8s/`): a path under
 * one of the repository's top folders, with no placeholder or pattern in it (`*`, `<`, `{`, `$`, a space).
 */
const CODE_PATH = /^(?:\.\/)?((?:apps|libs|tools|docs|deploy|ops|proto|fbs|\.ci)\/[A-Za-z0-9_.\/-]*)$/;

/** The repository paths a page names in inline code, each with its line number. */
export function codePathsOf(text) {
  const out = [];
  proseLines(text).forEach((raw, i) => {
    for (const m of raw.matchAll(/(`+)([^`]+?)\1(?!`)/g)) {
      const span = m[2].trim();
      const hit = CODE_PATH.exec(span);
      if (hit) out.push({ line: i + 1, target: hit[1].replace(/:\d+$/, '') });
    }
  });
  return out;
}

/** Lines with fenced code blocks blanked (kept as empty lines so line numbers stay true). */
function proseLines(text) {
  const lines = text.split(/\r?\n/);
  let fence = null;
  return lines.map((line) => {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && m) {
      fence = m[1];
      return '';
    }
    if (fence !== null) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
      return '';
    }
    return line;
  });
}

/** A line with inline code spans replaced by spaces of the same length. */
function withoutCode(line) {
  return line.replace(/(`+)[^`]*?\1(?!`)/g, (s) => ' '.repeat(s.length));
}

/** GitHub's heading anchor for heading text (github-slugger): lower case, punctuation and symbols dropped, spaces to hyphens. */
export function slug(heading) {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown page offers: heading slugs (duplicates numbered as GitHub does) and id/name attributes. */
export function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of proseLines(text)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/\s(?:id|name)="([^"]+)"/g)) anchors.add(a[1]);
  }
  return anchors;
}

/** The link targets of one page, each with its line number. */
export function linksOf(text) {
  const out = [];
  proseLines(text).forEach((raw, i) => {
    const line = withoutCode(raw);
    const at = i + 1;
    for (const m of line.matchAll(/\]\(\s*(<[^>]*>|[^\s)]*(?:\([^\s)]*\)[^\s)]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
      out.push({ line: at, target: m[1].replace(/^<|>$/g, '') });
    }
    const def = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (def) out.push({ line: at, target: def[1].replace(/^<|>$/g, '') });
    for (const m of line.matchAll(/\s(?:href|src)="([^"]*)"/g)) out.push({ line: at, target: m[1] });
    for (const m of line.matchAll(/<((?:https?|mailto):[^>\s]*)>/g)) out.push({ line: at, target: m[1] });
  });
  return out;
}

/** Why an external target is malformed, or null when its syntax is fine. */
function externalProblem(target) {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target)[1].toLowerCase();
  if (!['http', 'https', 'mailto'].includes(scheme)) return `unsupported link scheme "${scheme}:"`;
  let url;
  try {
    url = new URL(target);
  } catch {
    return 'malformed URL';
  }
  if (scheme !== 'mailto' && (url.hostname === '' || !/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i.test(url.hostname)))
    return 'URL without a valid host';
  if (scheme === 'mailto' && !/^[^@\s]+@[^@\s]+$/.test(decodeURIComponent(url.pathname))) return 'malformed mailto address';
  return null;
}

/**
 * Every problem in the pages under root, as `relative/file.md:line: message` strings, plus counts.
 * `cache` holds each target page's anchors so a page linked often is read once.
 */
export function checkLinks(root) {
  const files = markdownFiles(root);
  const cache = new Map();
  const anchorsIn = (file) => {
    if (!cache.has(file)) cache.set(file, anchorsOf(readFileSync(file, 'utf8')));
    return cache.get(file);
  };
  const problems = [];
  let links = 0;
  for (const file of files) {
    const rel = path.relative(root, file);
    for (const { line, target } of linksOf(readFileSync(file, 'utf8'))) {
      links += 1;
      const where = `${rel}:${line}`;
      if (target === '') {
        problems.push(`${where}: empty link target`);
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        const problem = externalProblem(target);
        if (problem) problems.push(`${where}: ${problem}: ${target}`);
        continue;
      }
      const hash = target.indexOf('#');
      const pathPart = (hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
      const anchor = hash < 0 ? null : target.slice(hash + 1);
      let decoded;
      try {
        decoded = decodeURIComponent(pathPart);
      } catch {
        problems.push(`${where}: malformed percent-encoding: ${target}`);
        continue;
      }
      const resolved =
        decoded === '' ? file : decoded.startsWith('/') ? path.join(root, decoded) : path.resolve(path.dirname(file), decoded);
      if (!existsSync(resolved)) {
        problems.push(`${where}: no such file or folder: ${target}`);
        continue;
      }
      if (anchor === null || anchor === '') continue;
      if (!resolved.endsWith('.md') || !statSync(resolved).isFile()) continue; // line anchors (#L10) of source files are GitHub's own
      let wanted;
      try {
        wanted = decodeURIComponent(anchor);
      } catch {
        wanted = anchor;
      }
      if (!anchorsIn(resolved).has(wanted)) {
        const page = resolved === file ? 'this page' : path.relative(root, resolved);
        problems.push(`${where}: no heading or id "#${anchor}" in ${page}: ${target}`);
      }
    }
  }
  for (const file of files) {
    const rel = path.relative(root, file);
    for (const { line, target } of codePathsOf(readFileSync(file, 'utf8'))) {
      links += 1;
      if (!existsSync(path.join(root, target))) problems.push(`${rel}:${line}: no such file or folder (in code): ${target}`);
    }
  }
  return { files: files.length, links, problems };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../..'));
  const { files, links, problems } = checkLinks(root);
  for (const p of problems) console.log(p);
  console.log(`${files} page(s), ${links} link(s), ${problems.length} broken`);
  process.exit(problems.length === 0 ? 0 : 1);
}
