import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  profiles?: string[];
  image?: string;
  ports?: (string | { host_ip?: string; published?: string | number; target?: number })[];
  read_only?: boolean;
  tmpfs?: string | string[];
  build?: { context?: string; dockerfile?: string; target?: string };
  environment?: Record<string, unknown>;
  volumes?: string[];
}

/** Variables a container may carry that belong to the runtime, not to the service's config schema. */
/** Variables every process reads besides its schema: the runtime's, and config's CONFIG_FROM (who filled what). */
const RUNTIME_VARS = new Set(['NODE_ENV', 'CONFIG_FROM']);

/** Every npm workspace folder of the repository (the root package.json's `dir/*` globs). */
export function workspaceDirs(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  return (pkg.workspaces ?? []).flatMap((glob) => {
    const base = glob.replace(/\/\*$/, '');
    return readdirSync(join(root, base), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, base, d.name, 'package.json')))
      .map((d) => `${base}/${d.name}`);
  });
}

/**
 * The lines of one stage of a Dockerfile (`FROM … AS <target>` up to the next FROM), and of the
 * stages it builds on by name (`FROM runtime AS backend` takes runtime's lines first).
 */
function stageLines(lines: readonly string[], target: string, seen = new Set<string>()): string[] {
  const start = lines.findIndex((l) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${target}\\s*$`, 'i').test(l.trim()));
  if (start < 0 || seen.has(target)) return [];
  seen.add(target);
  const end = lines.findIndex((l, i) => i > start && /^FROM\s/i.test(l.trim()));
  const parent = /^FROM\s+(\S+)/i.exec((lines[start] as string).trim())?.[1] ?? '';
  return [...stageLines(lines, parent, seen), ...lines.slice(start, end < 0 ? undefined : end)];
}

/**
 * Checks one docker-compose service against the repository, since no Docker engine runs here: the
 * compose file parses, the build context and the one Dockerfile exist, the service's build target
 * is a stage of it and its image is tagged localhost/wordgame/<service>, every COPY source the
 * Dockerfile takes from the context exists, every workspace manifest is copied (so `npm ci` in the
 * image sees the lockfile's workspaces), every variable set by compose or by the service's stage is
 * one the service's config schema knows, and that stage drops root. Returns the problems found;
 * empty means consistent.
 */
export function composeProblems(root: string, service: string, knownVars: readonly string[]): string[] {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services?: Record<string, ComposeService> };
  const svc = compose.services?.[service];
  if (!svc) return [`service ${service} is not in docker-compose.yml`];
  const problems: string[] = [];
  const known = new Set([...knownVars, ...RUNTIME_VARS]);

  const context = resolve(root, svc.build?.context ?? '.');
  const dockerfile = join(context, svc.build?.dockerfile ?? 'Dockerfile');
  if (!existsSync(context)) problems.push(`build context ${svc.build?.context ?? '.'} does not exist`);
  if (!existsSync(dockerfile)) return [...problems, `Dockerfile ${svc.build?.dockerfile ?? 'Dockerfile'} does not exist`];
  if (svc.build?.target !== service) problems.push(`build target is ${svc.build?.target ?? '(none)'}, not ${service}`);
  if (!svc.image?.startsWith(`localhost/wordgame/${service}:`))
    problems.push(`image ${svc.image ?? '(none)'} is not localhost/wordgame/${service}:<tag>`);

  for (const name of Object.keys(svc.environment ?? {}))
    if (!known.has(name)) problems.push(`compose sets ${name}, unknown to ${service}'s config`);

  const lines = readFileSync(dockerfile, 'utf8').split('\n');
  const stage = stageLines(lines, service);
  if (stage.length === 0) return [...problems, `Dockerfile has no stage ${service}`];
  const copied = new Set<string>();
  for (const line of lines) {
    const copy = /^COPY\s+(?!--from)(?:--\S+\s+)*(.+)$/.exec(line.trim());
    if (copy) {
      const parts = (copy[1] as string).split(/\s+/);
      for (const src of parts.slice(0, -1)) {
        copied.add(src.replace(/\/$/, ''));
        if (!existsSync(join(context, src))) problems.push(`Dockerfile copies ${src}, which does not exist`);
      }
    }
  }
  for (const line of stage) {
    const envLine = /^ENV\s+(.+)$/.exec(line.trim());
    if (envLine) {
      for (const pair of (envLine[1] as string).split(/\s+/)) {
        const name = pair.split('=')[0] as string;
        if (!known.has(name)) problems.push(`Dockerfile sets ${name}, unknown to ${service}'s config`);
      }
    }
    if (/^USER\s+root\b/.test(line.trim())) problems.push(`stage ${service} runs as root`);
  }
  if (!stage.some((l) => /^USER\s+\S+/.test(l.trim()))) problems.push(`stage ${service} never drops root (no USER)`);
  for (const dir of workspaceDirs(root)) {
    if (!copied.has(`${dir}/package.json`))
      problems.push(`Dockerfile does not copy ${dir}/package.json (npm ci needs every workspace manifest)`);
  }
  return problems;
}

/** The variables docker-compose.yml sets for `service` (raw values); empty when it sets none. */
export function composeEnvironment(root: string, service: string): Record<string, unknown> {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services?: Record<string, ComposeService> };
  return { ...compose.services?.[service]?.environment };
}

/** A variable name that says it carries a credential. */
const SECRET_VAR = /TOKEN|SECRET|KEY|PASSWORD|SHOPS/;

/**
 * Secrets that the compose file fixes in a service outside the `dev` profile — a fallback
 * (`${VAR:-value}` or `${VAR-value}`), a literal value (`POSTGRES_PASSWORD: wordgame`), or a
 * password written into a URL (`postgres://user:pass@…`): each would run a production stack on a
 * publicly known credential. Outside dev, a secret must be required (`${VAR:?message}`) or default
 * to empty (feature off). Nor may a variable default to a service that runs only in the `dev`
 * profile (an emulator or the mail catcher): a plain `up` would talk to nothing. Returns one
 * problem per offending variable.
 */
export function insecureComposeDefaults(root: string): string[] {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services?: Record<string, ComposeService> };
  const problems: string[] = [];
  const devOnly = Object.entries(compose.services ?? {})
    .filter(([, svc]) => svc.profiles?.includes('dev'))
    .map(([name]) => name);
  for (const [name, svc] of Object.entries(compose.services ?? {})) {
    if (svc.profiles?.includes('dev')) continue;
    for (const [variable, value] of Object.entries(svc.environment ?? {})) {
      // What the variable becomes with nothing set: a literal, or a `${VAR:-default}` default.
      const unset = String(value).replace(
        /\$\{[A-Z0-9_]+(?::?-([^}]*)|:?\?[^}]*)?\}/g,
        (_m, fallback: string | undefined) => fallback ?? '',
      );
      for (const dev of devOnly) {
        if (new RegExp(`(^|[/@.:\\s])${dev}([:/.]|$)`).test(unset))
          problems.push(`${name}: ${variable} points at ${dev}, which runs only in the dev profile`);
      }
    }
    for (const [variable, value] of Object.entries(svc.environment ?? {})) {
      const literal = String(value).replace(/\$\{[^}]*\}/g, '');
      // A path (BOTLINK_TLS_KEY: /certs/tls.key) names where a secret is, not the secret.
      if (SECRET_VAR.test(variable) && literal.trim() !== '' && !literal.startsWith('/'))
        problems.push(`${name}: ${variable} is a fixed secret`);
      if (/^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:[^@]+@/i.test(String(value)) && /:\/\/[^/@:]*:(?!\$\{)/.test(String(value)))
        problems.push(`${name}: ${variable} carries a fixed password in its URL`);
      for (const m of String(value).matchAll(/\$\{([A-Z0-9_]+)(:?-)([^}]*)\}/g)) {
        if ((SECRET_VAR.test(variable) || SECRET_VAR.test(m[1] as string)) && (m[3] as string) !== '')
          problems.push(`${name}: ${variable} falls back to a fixed secret`);
      }
    }
  }
  return problems;
}

/** The services whose ports are the product's public face: the gateways' HTTP and bot-link ports. */
const PUBLIC_SERVICES = new Set(['gateway', 'gateway-2']);

/**
 * The deploy defaults of docker-compose.yml and the Dockerfile (docs/security.md, "Deploy
 * defaults"): every published port of a service other than the gateways is bound to 127.0.0.1 (the
 * emulators' control APIs settle payments; the mail catcher, Prometheus, Alertmanager and Grafana
 * serve what is only the operator's to see); every service built from the Dockerfile, and NATS, runs
 * `read_only: true`, the built ones with a tmpfs on /tmp; and the runtime stage of each built service
 * copies its code without handing it to the runtime user (no `COPY --chown`, no `chown` but of the
 * /app/.data mount point). Returns one problem per breach; empty means the defaults hold.
 */
export function composeExposureProblems(root: string): string[] {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services?: Record<string, ComposeService>;
  };
  const lines = readFileSync(join(root, 'Dockerfile'), 'utf8').split('\n');
  const problems: string[] = [];
  for (const [name, svc] of Object.entries(compose.services ?? {})) {
    for (const port of svc.ports ?? []) {
      const hostIp = typeof port === 'string' ? /^(\d+\.\d+\.\d+\.\d+|\[[^\]]+\]):/.exec(port)?.[1] : port.host_ip;
      if (!PUBLIC_SERVICES.has(name) && hostIp !== '127.0.0.1')
        problems.push(
          `${name}: port ${typeof port === 'string' ? port : JSON.stringify(port)} is published on every interface, not 127.0.0.1`,
        );
    }
    const built = svc.build?.target !== undefined;
    if (!built && name !== 'nats') continue;
    if (svc.read_only !== true) problems.push(`${name}: not read_only: true`);
    const tmpfs = typeof svc.tmpfs === 'string' ? [svc.tmpfs] : (svc.tmpfs ?? []);
    if (built && !tmpfs.some((t) => t.split(':')[0] === '/tmp')) problems.push(`${name}: no tmpfs on /tmp`);
    if (!svc.build?.target) continue;
    for (const line of stageLines(lines, svc.build.target).map((l) => l.trim())) {
      if (/^COPY\b.*--chown/.test(line)) problems.push(`${name}: its stage hands its code to the runtime user (${line})`);
      const chown = /\bchown\s+(?:-\S+\s+)*\S+\s+(.+?)(?:\s*(?:&&|;|$))/.exec(line);
      if (chown && chown[1] !== '/app/.data') problems.push(`${name}: its stage chowns ${chown[1] ?? ''} (${line})`);
    }
  }
  return problems;
}
