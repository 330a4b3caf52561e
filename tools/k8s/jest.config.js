import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'k8s', rootDir: import.meta.dirname };
