import type { Request } from 'express';
import { pickLanguage, type Language } from '@wordgame/i18n';

/**
 * The language a player's request asks for: the first `Accept-Language` entry the shared catalogue
 * (libs/i18n) has, else English, the catalog's base text. The wallet page sends its own language
 * (the platform's, else the browser's) in this header, so the catalog, the invoice and the page
 * speak one language.
 */
export function requestLanguage(req: Request): Language {
  return pickLanguage(req.acceptsLanguages(), 'en');
}
