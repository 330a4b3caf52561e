import { fileURLToPath } from 'node:url';
import { renderOverlay, type K8sObject } from '@wordgame/testkit';
import { unknownFields } from '../src/strict.js';
import { validateSchemas } from '../src/validate.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const rendered = { dev: renderOverlay(root, 'dev'), production: renderOverlay(root, 'production') };
const deployment = (objects: K8sObject[], name: string) =>
  structuredClone(objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)) as K8sObject & {
    spec: { replicas: unknown; strategy: { type: string }; template: { spec: { containers: Record<string, unknown>[] } } };
  };

describe.each(['dev', 'production'] as const)('the %s overlay against the Kubernetes API schemas', (overlay) => {
  it('has no object the schemas reject', async () => {
    const problems = (await validateSchemas(rendered[overlay])).filter((r) => r.problems.length > 0);
    expect(problems).toEqual([]);
  });

  it('has no field the API does not know', () => {
    expect(unknownFields(rendered[overlay]).flat()).toEqual([]);
  });
});

describe('the validators', () => {
  it('reject wrong types, enums and quantities, naming the field', async () => {
    const bad = deployment(rendered.production, 'backend');
    bad.spec.replicas = 'three';
    bad.spec.strategy.type = 'Rolling';
    (bad.spec.template.spec.containers[0] as { resources: { limits: { memory: string } } }).resources.limits.memory = '512 MB';
    const [result] = await validateSchemas([bad]);
    expect(result?.problems.join()).toMatch(/spec\/replicas must be integer/);
    expect(result?.problems.join()).toMatch(/spec\/strategy\/type must be equal to one of the allowed values/);
    expect(result?.problems.join()).toMatch(/limits\/memory must match format "quantity"/);
  });

  it('reject a probe command whose YAML made a map of it (an unquoted ": ")', async () => {
    const bad = deployment(rendered.production, 'bot');
    (bad.spec.template.spec.containers[0] as { readinessProbe: { exec: { command: unknown[] } } }).readinessProbe.exec.command[2] = {
      "fetch('http://127.0.0.1:8090/readyz').then((r) => process.exit(r.ok ? 0": '1), () => process.exit(1))',
    };
    const [result] = await validateSchemas([bad]);
    expect(result?.problems.join()).toMatch(/readinessProbe\/exec\/command\/2 must be string/);
  });

  it('reject a kind the API has not', async () => {
    const [result] = await validateSchemas([{ apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } }]);
    expect(result?.problems).toEqual(['no Kubernetes API schema for apps/v1 Deploymnet']);
  });

  it('name a misspelt field, which the schemas alone let through', async () => {
    const bad = deployment(rendered.production, 'gateway');
    const container = bad.spec.template.spec.containers[0] as Record<string, unknown>;
    container['readinesProbe'] = container['readinessProbe'];
    delete container['readinessProbe'];
    expect((await validateSchemas([bad]))[0]?.problems).toEqual([]);
    expect(unknownFields([bad])[0]?.join()).toMatch(/'"?readinesProbe"?' does not exist in type 'IContainer'/);
  });
});
