import { z } from 'zod';

/** A JSON value as the document holds it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/** A JSON object of the document. */
export type JsonObject = { [key: string]: Json };

/**
 * The JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a zod schema: `input` for requests (what
 * a client sends, before transforms), `output` for responses. Refinements a schema cannot express
 * (a bigint bound, distinct kinds) are left to the server's 400; the top-level `$schema` is dropped.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const converted = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

/** Express path parameters (`/games/:id`) as an OpenAPI path template (`/games/{id}`). */
export function templatePath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
