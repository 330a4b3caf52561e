import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateDocument, OPENAPI_FILE, renderDocument } from './generate.js';

/** `npm run openapi`: writes the API document to apps/gateway/openapi.json (committed; a test fails on drift). */
const target = resolve(process.argv[2] ?? OPENAPI_FILE);
writeFileSync(target, renderDocument(generateDocument()));
process.stdout.write(`wrote ${target}\n`);
