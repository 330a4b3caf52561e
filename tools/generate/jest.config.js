import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'generate', rootDir: import.meta.dirname };
