import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'h2-unary', rootDir: import.meta.dirname };
