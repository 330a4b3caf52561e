import type { K8sObject } from '@wordgame/testkit';
import { podTemplates } from '@wordgame/testkit';

/** A container of a pod template, as far as the podman run reads and rewrites it. */
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
  envFrom?: { secretRef?: { name: string } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  readinessProbe?: Probe;
}
/** A readiness probe: httpGet or exec, as kubelet runs them. */
export interface Probe {
  httpGet?: { path?: string; port: number | string };
  exec?: { command: string[] };
}
interface PodSpec {
  containers: Container[];
  restartPolicy?: string;
  hostAliases?: { ip: string; hostnames: string[] }[];
  volumes?: { name: string; secret?: { secretName: string }; hostPath?: { path: string; type?: string } }[];
}

/** What podman 4.3 is given, and what it is not, for one rendered overlay. */
export interface PodmanPlan {
  /** Run first, each to exit 0 (the migration Job's pod): the Job-before-rollout order. */
  jobs: K8sObject[];
  /** Played after the jobs, one pod each, in this order (static IPs are given in this order). */
  workloads: K8sObject[];
  /** Secrets read through env: podman 4.3 wants them as its own secrets, a JSON map of base64 values. */
  envSecrets: { name: string; json: string }[];
  /** ConfigMaps and PersistentVolumeClaims: kube play turns them into volumes. */
  volumes: K8sObject[];
  /**
   * Secrets mounted as volumes, decoded, to be written as files under `secretDir/<name>/` (mode 0440,
   * group 10001, as defaultMode and fsGroup make them): podman 4.3 writes a Secret's `data` still
   * base64-encoded, so the pods mount these folders instead (hostPath).
   */
  secretFiles: { name: string; files: Record<string, string> }[];
  /** The readiness probes of each workload (same order), ports resolved from the rendered pods. */
  probes: ReturnType<typeof readinessProbes>[];
  /** Every other object, with the reason it is not run. */
  notRun: { object: string; why: string }[];
}

const name = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
const specOf = (o: K8sObject): PodSpec =>
  (o.kind === 'Pod' ? o['spec'] : (o['spec'] as { template: { spec: unknown } }).template.spec) as PodSpec;

/**
 * Splits rendered objects into what `podman kube play` 4.3 runs and what it cannot, and rewrites
 * what needs it: each Service becomes a hostAliases entry (its name to the IP the pod behind it
 * will get; its port must be the container's, since nothing translates ports), a Job becomes a
 * Pod run before the workloads, env Secrets become podman secrets, and volume Secrets carry their
 * values decoded (podman 4.3 writes `data` as it stands). `ipOf` gives each workload's replicas their static IPs (podman 4.3 starts every replica).
 */
export function planPodmanRun(
  objects: readonly K8sObject[],
  ipOf: (index: number, replica: number) => string,
  secretDir: string,
): PodmanPlan {
  const plan: PodmanPlan = { jobs: [], workloads: [], envSecrets: [], volumes: [], secretFiles: [], probes: [], notRun: [] };
  const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Pod');
  const aliases: { ip: string; hostnames: string[] }[] = [];
  for (const o of objects) {
    if (o.kind === 'Job') continue;
    if (o.kind === 'Deployment' || o.kind === 'Pod') {
      const replicas = replicasOf(o);
      if (replicas > 1)
        plan.notRun.push({
          object: name(o),
          why: `replicas: ${replicas} pods run, but its Service name resolves to the first alone (no balancing)`,
        });
    } else if (o.kind === 'Service') {
      const spec = o['spec'] as { selector?: Record<string, string>; ports?: { port: number; targetPort?: number | string }[] };
      const index = workloads.findIndex((w) => matches(spec.selector, templateLabels(w)));
      if (index < 0) {
        plan.notRun.push({ object: name(o), why: 'a Service of pods podman does not run' });
        continue;
      }
      const containers = specOf(workloads[index] as K8sObject).containers;
      for (const p of spec.ports ?? []) {
        const target = resolvePort(containers, p.targetPort ?? p.port);
        if (target !== p.port) throw new Error(`${name(o)} maps port ${p.port} to ${target}: podman's run needs them equal`);
      }
      aliases.push({ ip: ipOf(index, 0), hostnames: [o.metadata.name] });
      plan.notRun.push({ object: name(o), why: 'a Service: its name resolves to the one pod behind it (hostAliases)' });
    } else if (o.kind === 'ConfigMap' || o.kind === 'PersistentVolumeClaim' || o.kind === 'Secret') {
      // Decided below, once the pods' uses are known.
    } else plan.notRun.push({ object: name(o), why: `kind ${o.kind} is not run by podman kube play` });
  }
  const withAliases = (o: K8sObject): K8sObject => {
    const copy = structuredClone(o);
    const spec = specOf(copy);
    spec.hostAliases = [...(spec.hostAliases ?? []), ...aliases];
    spec.volumes = spec.volumes?.map((v) =>
      v.secret ? { name: v.name, hostPath: { path: `${secretDir}/${v.secret.secretName}`, type: 'Directory' } } : v,
    );
    return copy;
  };
  // podman 4.3 publishes every containerPort on the host (as if hostPort were set): the pods are
  // reached on their own addresses instead, so the ports are dropped once the probes and the
  // Services have resolved them.
  plan.workloads = workloads.map(withAliases).map((o) => {
    for (const c of specOf(o).containers) delete c.ports;
    return o;
  });
  plan.probes = workloads.map(readinessProbes);
  plan.jobs = objects
    .filter((o) => o.kind === 'Job')
    .map((job) => {
      const template = (job['spec'] as { template: { metadata?: Record<string, unknown>; spec: PodSpec } }).template;
      return withAliases({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: job.metadata.name, labels: (template.metadata?.['labels'] as Record<string, string>) ?? {} },
        spec: { ...template.spec, restartPolicy: 'Never' },
      });
    });

  const pods = [...plan.jobs, ...plan.workloads].map(specOf);
  const envUse = new Set(
    pods.flatMap((s) =>
      s.containers.flatMap((c) => [
        ...(c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : [])),
        ...(c.envFrom ?? []).flatMap((e) => (e.secretRef ? [e.secretRef.name] : [])),
      ]),
    ),
  );
  const volumeUse = new Set(
    [...objects.filter((o) => o.kind === 'Job' || o.kind === 'Deployment' || o.kind === 'Pod')]
      .map(specOfWorkload)
      .flatMap((s) => (s.volumes ?? []).flatMap((v) => (v.secret ? [v.secret.secretName] : []))),
  );
  for (const o of objects) {
    if (o.kind === 'ConfigMap' || o.kind === 'PersistentVolumeClaim') plan.volumes.push(o);
    if (o.kind !== 'Secret') continue;
    const data = Object.fromEntries(
      Object.entries((o['data'] as Record<string, string> | undefined) ?? {}).map(([k, v]) => [k, v.replace(/\s/g, '')]),
    );
    if (envUse.has(o.metadata.name) && volumeUse.has(o.metadata.name))
      throw new Error(`${name(o)} is used as env and as a volume: podman 4.3 reads the two from different stores`);
    if (envUse.has(o.metadata.name)) plan.envSecrets.push({ name: o.metadata.name, json: JSON.stringify(data) });
    else if (volumeUse.has(o.metadata.name)) {
      const files = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      plan.secretFiles.push({ name: o.metadata.name, files });
      plan.notRun.push({ object: name(o), why: 'a Secret volume: mounted from decoded files (podman 4.3 writes `data` still encoded)' });
    } else plan.notRun.push({ object: name(o), why: 'a Secret no pod that podman runs uses' });
  }
  return plan;
}

/** How many pods a workload runs (a Pod: one). */
export function replicasOf(o: K8sObject): number {
  return o.kind === 'Deployment' ? ((o['spec'] as { replicas?: number }).replicas ?? 1) : 1;
}

/** A workload's pod spec (a Job's template too), before any rewriting. */
function specOfWorkload(o: K8sObject): PodSpec {
  return o.kind === 'Pod' ? (o['spec'] as PodSpec) : (o['spec'] as { template: { spec: PodSpec } }).template.spec;
}

/** The pod template's labels of a Deployment (or a Pod's own). */
function templateLabels(o: K8sObject): Record<string, string> {
  if (o.kind === 'Pod') return o.metadata.labels ?? {};
  return (o['spec'] as { template: { metadata?: { labels?: Record<string, string> } } }).template.metadata?.labels ?? {};
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  return !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** A port by number, or by the name of a container port of the pod. */
export function resolvePort(containers: readonly Container[], port: number | string): number {
  if (typeof port === 'number') return port;
  const found = containers.flatMap((c) => c.ports ?? []).find((p) => p.name === port);
  if (!found) throw new Error(`no container port named ${port}`);
  return found.containerPort;
}

/** The readiness probe of each container of a workload, with the port resolved (undefined = none). */
export function readinessProbes(o: K8sObject): { container: string; probe: Probe | undefined; port?: number }[] {
  const spec = specOf(o);
  return spec.containers.map((c) => ({
    container: c.name,
    probe: c.readinessProbe,
    port: c.readinessProbe?.httpGet ? resolvePort(spec.containers, c.readinessProbe.httpGet.port) : undefined,
  }));
}

export { podTemplates };
