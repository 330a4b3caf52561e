import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { podTemplates, renderOverlay, type K8sObject } from '@wordgame/testkit';

const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Probe {
  httpGet?: { path: string };
  exec?: { command: string[] };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
type Workload = K8sObject & {
  spec: {
    replicas?: number;
    strategy?: { type: string; rollingUpdate?: { maxUnavailable: number | string } };
    template: { spec: { containers: Container[]; terminationGracePeriodSeconds?: number } };
  };
};

/** The probe paths each service serves (apps/*: /livez, /readyz; NATS's monitoring endpoint on loopback: /healthz). */
const SERVED = ['/livez', '/readyz', '/healthz'];

describe.each(['dev', 'production'] as const)('the %s overlay', (overlay) => {
  const objects = renderOverlay(root, overlay);
  const find = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`${kind}/${name} is not rendered`);
    return found as Workload;
  };
  const env = (c: Container | undefined, name: string) => c?.env?.find((e) => e.name === name)?.value;

  it.each(['gateway', 'backend'])('runs %s with several replicas, rolling with maxUnavailable 0 and a PodDisruptionBudget', (name) => {
    const d = find('Deployment', name);
    expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    expect(find('PodDisruptionBudget', name)['spec']).toMatchObject({ maxUnavailable: 1 });
  });

  it('runs the bot as the single owner of updates: one replica, Recreate', () => {
    const bot = find('Deployment', 'bot');
    expect(bot.spec.replicas).toBe(1);
    expect(bot.spec.strategy).toEqual({ type: 'Recreate' });
    expect(env(bot.spec.template.spec.containers[0], 'OWNS_UPDATES')).toBe('true');
  });

  it('gives every container requests, limits and readiness and liveness probes on endpoints it serves', () => {
    for (const { owner, spec } of podTemplates(objects)) {
      for (const c of spec.containers as Container[]) {
        const where = `${owner.kind}/${owner.metadata.name} ${c.name}`;
        expect([where, Object.keys(c.resources?.requests ?? {}).sort()]).toEqual([where, ['cpu', 'memory']]);
        expect([where, Object.keys(c.resources?.limits ?? {}).sort()]).toEqual([where, ['cpu', 'memory']]);
        if (owner.kind === 'Job') continue;
        for (const probe of [c.readinessProbe, c.livenessProbe]) {
          expect([where, probe !== undefined]).toEqual([where, true]);
          const path = probe?.httpGet?.path ?? /\/(livez|readyz|healthz)(?='|$)/.exec(probe?.exec?.command.join(' ') ?? '')?.[0];
          if (!probe?.exec?.command.includes('pg_isready')) expect([where, SERVED.includes(path ?? '')]).toEqual([where, true]);
        }
      }
    }
  });

  it('puts the bot-link port behind an L4 Service to the gateways', () => {
    const svc = find('Service', 'botlink')['spec'] as unknown as { type: string; selector: object; ports: object[] };
    expect(svc.type).toBe(overlay === 'dev' ? 'NodePort' : 'LoadBalancer');
    expect(svc.selector).toEqual({ 'app.kubernetes.io/name': 'gateway' });
    expect(svc.ports).toEqual([expect.objectContaining({ protocol: 'TCP', port: 8443, targetPort: 'botlink' })]);
  });

  it("runs the backend image's migrate command as a Job", () => {
    const job = find('Job', 'backend-migrate');
    const [c] = job.spec.template.spec.containers;
    expect(c?.image).toMatch(/\/wordgame\/backend(:|$)/);
    expect(c?.args).toEqual(['migrate']);
    expect(job.metadata.labels?.['wordgame.dev/phase']).toBe('pre-rollout');
  });

  it('gives the gateway and the backend a grace period longer than their drain (preStop, drain delay, then 10 s to stop)', () => {
    const gateway = find('Deployment', 'gateway').spec.template.spec;
    const preStop = Number(gateway.containers[0]?.lifecycle?.preStop?.exec?.command[1]);
    expect(preStop).toBeGreaterThan(0);
    expect(gateway.terminationGracePeriodSeconds).toBeGreaterThan(preStop + 10);
    const backend = find('Deployment', 'backend').spec.template.spec;
    const drain = Number(env(backend.containers[0], 'BACKEND_DRAIN_DELAY_MS')) / 1000;
    expect(drain).toBeGreaterThan(0);
    expect(backend.terminationGracePeriodSeconds).toBeGreaterThan(drain + 10);
  });

  it('runs NATS on ops/nats/nats.conf as it is, with TLS required (nats-k8s.conf includes nats-tls.conf, which includes nats.conf)', () => {
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('nats-config'));
    const files = config?.['data'] as Record<string, string>;
    for (const file of ['nats.conf', 'nats-tls.conf', 'nats-k8s.conf'])
      expect(files[file]).toBe(readFileSync(`${root}ops/nats/${file}`, 'utf8'));
    expect(files['nats-k8s.conf']).toMatch(/^include \.\/nats-tls\.conf$/m);
    expect(files['nats-tls.conf']).toMatch(/^include \.\/nats\.conf$/m);
    const [nats] = find('Deployment', 'nats').spec.template.spec.containers;
    expect(nats?.args?.slice(0, 2)).toEqual(['-c', '/etc/nats/nats-k8s.conf']);
    expect(env(nats, 'NATS_TLS_CERT')).toBe('/etc/nats-tls/tls.crt');
  });

  it.each(['gateway', 'backend'])('has %s dial NATS over TLS, trusting the CA of the Secret nats-ca', (name) => {
    const spec = find('Deployment', name).spec.template.spec as unknown as {
      containers: (Container & { volumeMounts: { name: string; mountPath: string }[] })[];
      volumes: { name: string; secret?: { secretName: string } }[];
    };
    const [c] = spec.containers;
    expect(env(c, 'NATS_URL')).toBe('tls://nats:4222');
    const mount = c?.volumeMounts.find((m) => env(c, 'NATS_TLS_CA')?.startsWith(`${m.mountPath}/`));
    expect(spec.volumes.find((v) => v.name === mount?.name)?.secret?.secretName).toMatch(/^nats-ca(-|$)/);
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name.startsWith('nats-ca'));
    expect(Object.keys(secret?.['data'] as object)).toEqual(['ca.crt']);
  });

  it('runs every container with a read-only root file system', () => {
    for (const { owner, spec } of podTemplates(objects))
      for (const c of spec.containers as (Container & { securityContext?: { readOnlyRootFilesystem?: boolean } })[])
        expect([`${owner.kind}/${owner.metadata.name} ${c.name}`, c.securityContext?.readOnlyRootFilesystem]).toEqual([
          `${owner.kind}/${owner.metadata.name} ${c.name}`,
          true,
        ]);
  });
});
