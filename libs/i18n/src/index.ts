export { CATALOGUE, type MessageKey, type Messages } from './catalogue.js';
export { LANGUAGES, languageOf, pickLanguage, type Language } from './language.js';
export { createTranslator, type MessageParams, type Translator } from './translator.js';
