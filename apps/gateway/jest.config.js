import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'gateway', rootDir: import.meta.dirname };
