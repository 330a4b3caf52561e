import { fileURLToPath } from 'node:url';
import { k8sProblems, renderOverlay, secretVariables } from '@wordgame/testkit';
import { backendConfigSchema } from '../src/config/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe.each(['dev', 'production'] as const)('Kubernetes overlay %s: backend', (overlay) => {
  it('sets only variables the config knows, and every credential from a Secret', () => {
    const shape = backendConfigSchema.shape;
    expect(k8sProblems(renderOverlay(root, overlay), 'backend', Object.keys(shape), secretVariables(shape))).toEqual([]);
  });
});
