import { fileURLToPath } from 'node:url';
import { k8sProblems, renderOverlay, secretVariables, type K8sObject } from '@wordgame/testkit';
import { botConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe.each(['dev', 'production'] as const)('Kubernetes overlay %s: bot', (overlay) => {
  it('sets only variables the config knows, and every credential from a Secret', () => {
    const shape = botConfigSchema.shape;
    expect(k8sProblems(renderOverlay(root, overlay), 'bot', Object.keys(shape), secretVariables(shape))).toEqual([]);
  });

  it('sets the policy links the bot refuses to start without', () => {
    expect(botEnvNames(renderOverlay(root, overlay))).toEqual(expect.arrayContaining(['PRIVACY_POLICY_URL', 'TERMS_OF_SERVICE_URL']));
  });
});

/** The variable names the bot container of the rendered overlay sets. */
function botEnvNames(objects: readonly K8sObject[]): string[] {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'bot') as
    | { spec: { template: { spec: { containers: { name: string; env?: { name: string }[] }[] } } } }
    | undefined;
  const container = deployment?.spec.template.spec.containers.find((c) => c.name === 'bot');
  return (container?.env ?? []).map((e) => e.name);
}
