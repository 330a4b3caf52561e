import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOverlay, type K8sObject } from '@wordgame/testkit';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
}
interface PolicySpec {
  podSelector: Selector;
  policyTypes?: string[];
  ingress?: Rule[];
  egress?: Rule[];
}

/** The ranges an `internet` ipBlock leaves out: private, link-local (cloud metadata), shared; IPv6 unique-local and link-local. */
const NOT_INTERNET: Record<string, string[]> = {
  '0.0.0.0/0': ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'],
  '::/0': ['fc00::/7', 'fe80::/10'],
};

/** A selector as the channel table names it: a pod's app.kubernetes.io/name, `*` for every pod. */
function podName(s: Selector | undefined): string {
  const labels = s?.matchLabels ?? {};
  if (s?.matchExpressions?.length) return `expressions:${JSON.stringify(s.matchExpressions)}`;
  const keys = Object.keys(labels);
  if (keys.length === 0) return '*';
  if (keys.length === 1 && labels['app.kubernetes.io/name']) return labels['app.kubernetes.io/name'];
  return `labels:${JSON.stringify(labels)}`;
}

/** A rule's peer as the channel table names it (`internet`, `monitoring`, `kube-dns`, a pod), or its raw form. */
function peerName(p: Peer): string {
  if (p.ipBlock) {
    const except = NOT_INTERNET[p.ipBlock.cidr];
    const same = except !== undefined && [...(p.ipBlock.except ?? [])].sort().join() === [...except].sort().join();
    return same ? 'internet' : `ipBlock:${JSON.stringify(p.ipBlock)}`;
  }
  const ns = p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
  if (ns === 'kube-system' && p.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns' && Object.keys(p.podSelector.matchLabels).length === 1)
    return 'kube-dns';
  if (ns === 'monitoring' && p.podSelector === undefined && Object.keys(p.namespaceSelector?.matchLabels ?? {}).length === 1)
    return 'monitoring';
  if (p.namespaceSelector) return `namespace:${JSON.stringify(p)}`;
  return podName(p.podSelector);
}

const ports = (r: Rule) =>
  (r.ports ?? [{ port: 'all' }]).map(
    (p) => `${String(p.port ?? 'all')}${p.endPort ? `-${p.endPort}` : ''}/${(p.protocol ?? 'TCP').toLowerCase()}`,
  );

/** Every path the policies allow, `from -> to:port/proto`, with the side (ingress of `to`, egress of `from`) that allows it. */
function allowedPaths(objects: readonly K8sObject[]): { ingress: Set<string>; egress: Set<string> } {
  const ingress = new Set<string>();
  const egress = new Set<string>();
  for (const o of objects.filter((x) => x.kind === 'NetworkPolicy')) {
    const spec = o['spec'] as PolicySpec;
    const self = podName(spec.podSelector);
    for (const r of spec.ingress ?? [])
      for (const from of r.from?.map(peerName) ?? ['any']) for (const port of ports(r)) ingress.add(`${from} -> ${self}:${port}`);
    for (const r of spec.egress ?? [])
      for (const to of r.to?.map(peerName) ?? ['any']) for (const port of ports(r)) egress.add(`${self} -> ${to}:${port}`);
  }
  return { ingress, egress };
}

/** The paths of the first markdown table after the line starting `heading` in a doc: backticked names in its first three columns (from, to, port). */
function tablePaths(doc: string, heading: string): string[] {
  const text = readFileSync(`${root}${doc}`, 'utf8');
  const all = text.split('\n');
  const start = all.findIndex((l) => l.startsWith(heading));
  if (start < 0) throw new Error(`${doc} has no line starting ${heading}`);
  const lines = all.slice(start + 1);
  const first = lines.findIndex((l) => l.startsWith('| `'));
  if (first < 0) throw new Error(`${doc} has no table of paths after ${heading}`);
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
  return lines.slice(first, end < 0 ? undefined : end).flatMap((line) => {
    const [from = '', to = '', port = ''] = line.split('|').slice(1, 4);
    return code(from).flatMap((f) => code(to).flatMap((t) => code(port).map((p) => `${f} -> ${t}:${p.includes('/') ? p : `${p}/tcp`}`)));
  });
}

/** Service ports only a person reaches, through `kubectl port-forward` (which enters the pod and meets no policy). */
const PORT_FORWARD_ONLY = ['mailcatcher:1080'];

const sorted = (s: Iterable<string>) => [...new Set(s)].sort();

describe.each(['dev', 'production'] as const)('the %s overlay network policies', (overlay) => {
  const objects = renderOverlay(root, overlay);
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const { ingress, egress } = allowedPaths(objects);
  const base = tablePaths('docs/security.md', '## Deploy defaults');
  const dev = tablePaths('deploy/k8s/README.md', '**Network policies of the dev overlay**');

  it('denies every ingress and egress of every pod by default', () => {
    const deny = policies.filter((p) => {
      const spec = p['spec'] as PolicySpec;
      return podName(spec.podSelector) === '*' && spec.ingress === undefined && spec.egress === undefined;
    });
    expect(deny.map((p) => (p['spec'] as PolicySpec).policyTypes?.slice().sort())).toEqual([['Egress', 'Ingress']]);
  });

  it("allows exactly the paths of docs/security.md's channel table (and the dev stand-ins' in the dev overlay)", () => {
    expect(sorted([...ingress, ...egress])).toEqual(sorted(overlay === 'dev' ? [...base, ...dev] : base));
  });

  it('allows each path between two of its pods at both ends (the egress of one and the ingress of the other)', () => {
    const pods = new Set(objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind)).map((o) => o.metadata.name));
    const missing: string[] = [];
    for (const path of egress) {
      const [from, rest = ''] = path.split(' -> ');
      const to = rest.split(':')[0] ?? '';
      if (!pods.has(to)) continue;
      if (!ingress.has(path) && !ingress.has(`any -> ${rest}`)) missing.push(`${path}: no ingress of ${to} lets ${from ?? ''} in`);
    }
    for (const path of ingress) {
      const [from = '', rest = ''] = path.split(' -> ');
      if (!pods.has(from)) continue;
      if (!egress.has(path) && !egress.has(`${from} -> any:${rest.split(':')[1] ?? ''}`))
        missing.push(`${path}: no egress of ${from} lets it out`);
    }
    expect(missing).toEqual([]);
  });

  it('lets every Service port in from somewhere, and keeps the NATS monitoring endpoint off the pod network', () => {
    const unreachable: string[] = [];
    for (const svc of objects.filter((o) => o.kind === 'Service')) {
      const spec = svc['spec'] as {
        selector?: Record<string, string>;
        ports: { port: number; targetPort?: number | string; protocol?: string }[];
      };
      const name = spec.selector?.['app.kubernetes.io/name'] ?? '';
      const workload = objects.find((o) => ['Deployment', 'StatefulSet'].includes(o.kind) && o.metadata.name === name);
      const containers = (
        workload?.['spec'] as { template: { spec: { containers: { ports?: { name: string; containerPort: number }[] }[] } } }
      ).template.spec.containers;
      for (const p of spec.ports) {
        const target =
          typeof p.targetPort === 'string'
            ? containers.flatMap((c) => c.ports ?? []).find((c) => c.name === p.targetPort)?.containerPort
            : (p.targetPort ?? p.port);
        const key = `:${String(target)}/${(p.protocol ?? 'TCP').toLowerCase()}`;
        if (
          ![...ingress].some((path) => path.endsWith(` -> ${name}${key}`)) &&
          !PORT_FORWARD_ONLY.includes(`${svc.metadata.name}:${p.port}`)
        )
          unreachable.push(`Service ${svc.metadata.name} port ${p.port}`);
      }
    }
    expect(unreachable).toEqual([]);
    expect([...ingress].filter((p) => p.includes('nats:8222'))).toEqual([]);
    const nats = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'nats');
    const [container] = (
      nats?.['spec'] as { template: { spec: { containers: { ports?: { containerPort: number }[]; args?: string[] }[] } } }
    ).template.spec.containers;
    expect(container?.ports?.map((p) => p.containerPort)).toEqual([4222]);
    expect(container?.args).toEqual(['-c', '/etc/nats/nats-k8s.conf']);
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('nats-config'));
    expect((config?.['data'] as Record<string, string>)['nats-k8s.conf']).toMatch(/^http: "127\.0\.0\.1:8222"$/m);
  });
});
