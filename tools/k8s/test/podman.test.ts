import { fileURLToPath } from 'node:url';
import { renderOverlay, type K8sObject } from '@wordgame/testkit';
import { planPodmanRun } from '../src/podman.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const objects = renderOverlay(root, 'dev');
const ipOf = (i: number, replica: number) => `10.0.0.${10 + i * 10 + replica}`;

type PodSpec = {
  restartPolicy?: string;
  hostAliases?: { ip: string; hostnames: string[] }[];
  containers: { ports?: unknown[] }[];
  volumes?: { name: string; secret?: unknown; hostPath?: { path: string } }[];
};
const specOf = (o: K8sObject): PodSpec =>
  (o.kind === 'Pod' ? o['spec'] : (o['spec'] as { template: { spec: unknown } }).template.spec) as PodSpec;

describe('the podman kube play plan of the dev overlay', () => {
  const plan = planPodmanRun(objects, ipOf, '/run/secrets-here');

  it('runs the migration Job first, as a pod that does not restart', () => {
    expect(plan.jobs.map((j) => [j.kind, j.metadata.name, specOf(j).restartPolicy])).toEqual([['Pod', 'backend-migrate', 'Never']]);
  });

  it("binds every Service's name to the first pod of the workload it selects", () => {
    const index = (name: string) => plan.workloads.findIndex((w) => w.metadata.name === name);
    const aliases = specOf(plan.workloads[0] as K8sObject).hostAliases ?? [];
    expect(aliases).toEqual(
      expect.arrayContaining([
        { ip: ipOf(index('backend'), 0), hostnames: ['backend'] },
        { ip: ipOf(index('gateway'), 0), hostnames: ['gateway'] },
        { ip: ipOf(index('gateway'), 0), hostnames: ['gateway-internal'] },
        { ip: ipOf(index('nats'), 0), hostnames: ['nats'] },
      ]),
    );
    for (const w of [...plan.workloads, ...plan.jobs]) expect(specOf(w).hostAliases).toEqual(aliases);
  });

  it('drops the container ports (podman 4.3 would publish each on the host) but keeps the probes resolved', () => {
    for (const w of plan.workloads) for (const c of specOf(w).containers) expect(c.ports).toBeUndefined();
    const gateway = plan.probes[plan.workloads.findIndex((w) => w.metadata.name === 'gateway')];
    expect(gateway).toEqual([expect.objectContaining({ container: 'gateway', port: 8080 })]);
  });

  it('gives env Secrets to podman as JSON maps and mounts Secret volumes from decoded files', () => {
    const tokens = plan.envSecrets.find((s) => s.name.startsWith('wordgame-service-tokens'));
    expect(Object.keys(JSON.parse(tokens?.json ?? '{}') as object).sort()).toEqual(['BACKEND_SERVICE_TOKEN', 'GATEWAY_INTERNAL_TOKEN']);
    const tls = plan.secretFiles.find((s) => s.name.startsWith('gateway-botlink-tls'));
    expect(tls?.files['tls.crt']).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const gateway = plan.workloads.find((w) => w.metadata.name === 'gateway') as K8sObject;
    expect(specOf(gateway).volumes).toContainEqual({
      name: 'botlink-tls',
      hostPath: { path: `/run/secrets-here/${tls?.name ?? ''}`, type: 'Directory' },
    });
  });

  it('says what it does not run', () => {
    const notRun = plan.notRun.map((n) => n.object);
    expect(notRun).toEqual(
      expect.arrayContaining([
        'PodDisruptionBudget/gateway',
        'Service/botlink',
        'Namespace/wordgame-dev',
        'StatefulSet/postgres',
        'Service/postgres',
      ]),
    );
  });

  it('refuses a Service whose port differs from its pod port (nothing would translate it)', () => {
    const moved = structuredClone(objects).map((o) =>
      o.kind === 'Service' && o.metadata.name === 'nats'
        ? { ...o, spec: { ...(o['spec'] as object), ports: [{ name: 'client', port: 14222, targetPort: 'client' }] } }
        : o,
    );
    expect(() => planPodmanRun(moved, ipOf, '/x')).toThrow('Service/nats maps port 14222 to 4222');
  });
});
