import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'bench', rootDir: import.meta.dirname };
