import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'logging', rootDir: import.meta.dirname };
