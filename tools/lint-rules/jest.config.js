import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'lint-rules', rootDir: import.meta.dirname };
