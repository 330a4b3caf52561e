import { fileURLToPath } from 'node:url';
import { k8sProblems, renderOverlay, secretVariables } from '@wordgame/testkit';
import { gatewayConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe.each(['dev', 'production'] as const)('Kubernetes overlay %s: gateway', (overlay) => {
  it('sets only variables the config knows, and every credential from a Secret', () => {
    const shape = gatewayConfigSchema.shape;
    expect(k8sProblems(renderOverlay(root, overlay), 'gateway', Object.keys(shape), secretVariables(shape))).toEqual([]);
  });
});
