export { CATALOGUE, PLURAL_CATEGORIES, type MessageKey, type Messages, type PluralKey } from './catalogue.js';
export { LANGUAGES, languageOf, pickLanguage, type Language } from './language.js';
export { createTranslator, type MessageParams, type Translator } from './translator.js';
