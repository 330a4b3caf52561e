import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'service-kit', rootDir: import.meta.dirname };
