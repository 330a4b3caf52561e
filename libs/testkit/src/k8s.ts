import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isSecretField } from '@wordgame/config';
import { ensureDevCerts, ensureNatsCert } from './certs.js';

/** One rendered Kubernetes object (only the fields these checks read are typed). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The overlays of deploy/k8s. */
export type K8sOverlay = 'dev' | 'production';

/** Variables a container may carry that belong to the runtime, not to the service's config schema. */
const RUNTIME_VARS = new Set(['NODE_ENV']);

/**
 * Renders an overlay of deploy/k8s with `kubectl kustomize` (kubectl 1.27+, kustomize v5; `KUBECTL`
 * names another binary) in a scratch copy of the tree, after writing the inputs an operator writes
 * and git never holds: fresh dev certificates for each overlay (the bot-link set and the NATS
 * server's, {@link ensureNatsCert}), and for production each
 * `secrets/*.env.example` copied to `*.env`. Returns the objects in rendered order; throws with
 * kustomize's message when the tree does not render.
 */
export function renderOverlay(root: string, overlay: K8sOverlay): K8sObject[] {
  const scratch = mkdtempSync(join(tmpdir(), 'wordgame-k8s-'));
  try {
    cpSync(join(root, 'deploy/k8s'), join(scratch, 'deploy/k8s'), {
      recursive: true,
      filter: (src) => !/overlays\/dev\/certs(\/|$)|overlays\/production\/secrets\/(certs|[^/]+\.env)$/.test(src),
    });
    cpSync(join(root, 'ops/nats'), join(scratch, 'ops/nats'), { recursive: true });
    const dir = join(scratch, 'deploy/k8s/overlays', overlay);
    if (overlay === 'dev') {
      ensureDevCerts(join(dir, 'certs'));
      ensureNatsCert(join(dir, 'certs'));
    } else {
      ensureDevCerts(join(dir, 'secrets/certs'));
      ensureNatsCert(join(dir, 'secrets/certs'));
      for (const name of readdirSync(join(dir, 'secrets')).filter((n) => n.endsWith('.env.example')))
        writeFileSync(join(dir, 'secrets', name.replace(/\.example$/, '')), readFileSync(join(dir, 'secrets', name)));
    }
    return kustomize(dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `kubectl kustomize dir`, parsed; throws with its stderr when it fails. */
export function kustomize(dir: string): K8sObject[] {
  const kubectl = process.env['KUBECTL'] ?? 'kubectl';
  const run = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new Error(`${kubectl} kustomize: ${run.error.message} (kubectl 1.27+ renders deploy/k8s)`);
  if (run.status !== 0) throw new Error(`${kubectl} kustomize ${dir}: ${run.stderr}`);
  return parseAllDocuments(run.stdout)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** The variables of a config schema (its shape) that hold a credential, as libs/config judges them. */
export function secretVariables(shape: Record<string, unknown>): string[] {
  return Object.entries(shape)
    .filter(([name, field]) => isSecretField(name, field))
    .map(([name]) => name);
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: unknown; fieldRef?: unknown };
}
interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  envFrom?: unknown[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; secret?: { secretName: string } }[];
}

/** Every pod template of the workloads (Deployment, StatefulSet, Job, Pod), with its owner's kind and name. */
export function podTemplates(objects: readonly K8sObject[]): { owner: K8sObject; spec: PodSpec }[] {
  return objects.flatMap((o) => {
    if (o.kind === 'Pod') return [{ owner: o, spec: o['spec'] as PodSpec }];
    const template = (o['spec'] as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
    return template && ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(o.kind) ? [{ owner: o, spec: template }] : [];
  });
}

/**
 * Checks every container running the image of `service` (`…/wordgame/<service>[:tag]`) in rendered
 * objects: it sets only variables of the service's config schema (`knownVars`), never takes them in
 * bulk (envFrom), sets each credential (`secretVars`) only from a Secret (secretKeyRef to a Secret and
 * key that exist, unless marked optional) or as a file path inside a mounted Secret volume, and the
 * service's main workload (a Deployment or StatefulSet) sets every one of `secretVars`. Returns the
 * problems found; empty means consistent.
 */
export function k8sProblems(
  objects: readonly K8sObject[],
  service: string,
  knownVars: readonly string[],
  secretVars: readonly string[],
): string[] {
  const problems: string[] = [];
  const known = new Set([...knownVars, ...RUNTIME_VARS]);
  const secrets = new Map(
    objects
      .filter((o) => o.kind === 'Secret')
      .map((o) => [o.metadata.name, new Set(Object.keys({ ...(o['data'] as object), ...(o['stringData'] as object) }))]),
  );
  const image = new RegExp(`(^|/)wordgame/${service}(:|@|$)`);
  let mainWorkloads = 0;
  for (const { owner, spec } of podTemplates(objects)) {
    for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
      if (!image.test(container.image)) continue;
      const where = `${owner.kind} ${owner.metadata.name} container ${container.name}`;
      const main = owner.kind === 'Deployment' || owner.kind === 'StatefulSet';
      if (main) mainWorkloads += 1;
      if (container.envFrom?.length) problems.push(`${where} takes variables in bulk (envFrom): name each one`);
      const secretMounts = (container.volumeMounts ?? [])
        .filter((m) => spec.volumes?.some((v) => v.name === m.name && v.secret))
        .map((m) => m.mountPath.replace(/\/$/, ''));
      const set = new Set<string>();
      for (const variable of container.env ?? []) {
        set.add(variable.name);
        if (!known.has(variable.name)) problems.push(`${where} sets ${variable.name}, unknown to ${service}'s config`);
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) {
          if (!ref.optional && !secrets.get(ref.name)?.has(ref.key))
            problems.push(`${where} takes ${variable.name} from Secret ${ref.name} key ${ref.key}, which the overlay does not make`);
          continue;
        }
        if (!secretVars.includes(variable.name)) continue;
        const path = variable.value ?? '';
        if (!secretMounts.some((mount) => path.startsWith(`${mount}/`)))
          problems.push(`${where} sets credential ${variable.name} without a Secret (a literal, or a path outside a Secret volume)`);
      }
      if (main)
        for (const name of secretVars)
          if (!set.has(name)) problems.push(`${where} never sets credential ${name} (every credential comes from a Secret)`);
    }
  }
  if (mainWorkloads === 0) problems.push(`no Deployment or StatefulSet runs the ${service} image`);
  return problems;
}
