import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'config', rootDir: import.meta.dirname };
