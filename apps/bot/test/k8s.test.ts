import { fileURLToPath } from 'node:url';
import { k8sProblems, renderOverlay, secretVariables } from '@wordgame/testkit';
import { botConfigSchema } from '../src/config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe.each(['dev', 'production'] as const)('Kubernetes overlay %s: bot', (overlay) => {
  it('sets only variables the config knows, and every credential from a Secret', () => {
    const shape = botConfigSchema.shape;
    expect(k8sProblems(renderOverlay(root, overlay), 'bot', Object.keys(shape), secretVariables(shape))).toEqual([]);
  });
});
