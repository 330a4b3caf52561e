import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'testkit', rootDir: import.meta.dirname };
