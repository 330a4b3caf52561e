import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'devstack', rootDir: import.meta.dirname };
