import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'net-errors', rootDir: import.meta.dirname };
