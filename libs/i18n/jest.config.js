import { base } from '../../jest.preset.js';

export default { ...base, displayName: 'i18n', rootDir: import.meta.dirname };
