import { fileURLToPath } from 'node:url';
import { k8sProblems, renderOverlay, secretVariables } from '@wordgame/testkit';
import { configSchema } from './config.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('Kubernetes dev overlay: mailcatcher', () => {
  it('sets only variables the config knows, and every credential from a Secret', () => {
    const shape = configSchema.shape;
    expect(k8sProblems(renderOverlay(root, 'dev'), 'mailcatcher', Object.keys(shape), secretVariables(shape))).toEqual([]);
  });
});
