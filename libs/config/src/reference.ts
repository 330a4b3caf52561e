import { globalRegistry, type z } from 'zod';
import { isSecretField } from './secret.js';

/**
 * What a field made by an `env` builder accepts, in words (e.g. `whole number 1-500`). Keyed by the
 * schema's def, which `.describe()` and `.meta()` clones share, so describing a field keeps it.
 */
const KINDS = new WeakMap<object, string>();

/** Names what `field` accepts for the configuration reference; answers the field itself. */
export function markKind<T extends z.ZodType>(field: T, kind: string): T {
  KINDS.set(field._zod.def, kind);
  return field;
}

/**
 * One variable of a config schema as the generated reference shows it. `description` is the
 * schema's own (`.describe()`), the one place a variable is explained; `defaultValue` is rendered
 * (`undefined`: no default).
 */
export interface VariableReference {
  readonly name: string;
  readonly accepts: string;
  readonly defaultValue: string | undefined;
  readonly required: boolean;
  readonly secret: boolean;
  readonly description: string;
}

/** A schema has variables without a description: the reference would be incomplete. */
export class UndescribedVariablesError extends Error {
  override readonly name = 'UndescribedVariablesError';
  constructor(readonly variables: readonly string[]) {
    super(`config variables without a description (add .describe() to the schema field): ${variables.join(', ')}`);
  }
}

/** Metadata key for a default that is computed (e.g. per process), shown in words instead of a value. */
export const DEFAULT_TEXT_META = 'defaultText';

type Def = Readonly<Record<string, unknown>>;

function defOf(node: unknown): Def | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const def = (node as { _zod?: { def?: unknown } })._zod?.def;
  return typeof def === 'object' && def !== null ? (def as Def) : undefined;
}

function metaOf(node: unknown): Readonly<Record<string, unknown>> | undefined {
  return defOf(node) === undefined ? undefined : globalRegistry.get(node as z.ZodType);
}

/** The message a check (regex, refine, min …) was given, when it was given a fixed one. */
function checkMessage(check: unknown): string | undefined {
  const error = defOf(check)?.['error'];
  if (typeof error !== 'function') return undefined;
  const message: unknown = (error as () => unknown)();
  return typeof message === 'string' ? message : undefined;
}

function renderDefault(name: string, read: () => unknown): string {
  const value = read();
  if (JSON.stringify(value) !== JSON.stringify(read()))
    throw new Error(`${name}: its default is computed anew on each read; state it in words with .meta({ ${DEFAULT_TEXT_META}: '…' })`);
  if (Array.isArray(value)) return `\`${value.join(',')}\``;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `\`${String(value)}\``;
  throw new Error(`${name}: default ${JSON.stringify(value)} cannot be shown; state it with .meta({ ${DEFAULT_TEXT_META}: '…' })`);
}

/** Reads one field through its wrappers (default, prefault, optional, pipe) down to the base type. */
function inspect(name: string, field: z.ZodType): Omit<VariableReference, 'name' | 'secret'> {
  let description: string | undefined;
  let defaultText: string | undefined;
  let defaultValue: string | undefined;
  let optional = false;
  let base: string | undefined;
  const visit = (node: unknown): string[] => {
    const def = defOf(node);
    if (def === undefined) return [];
    const meta = metaOf(node);
    if (description === undefined && typeof meta?.['description'] === 'string') description = meta['description'];
    if (defaultText === undefined && typeof meta?.[DEFAULT_TEXT_META] === 'string') defaultText = meta[DEFAULT_TEXT_META];
    const kind = KINDS.get(def);
    if (kind !== undefined) {
      base ??= kind;
      return [];
    }
    const own = (Array.isArray(def['checks']) ? (def['checks'] as unknown[]) : []).flatMap((c) => checkMessage(c) ?? []);
    let inner: string[] = [];
    switch (def['type']) {
      case 'default':
      case 'prefault':
        if (defaultText === undefined && defaultValue === undefined) defaultValue = renderDefault(name, () => def['defaultValue']);
        inner = visit(def['innerType']);
        break;
      case 'optional':
        optional = true;
        inner = visit(def['innerType']);
        break;
      case 'pipe':
        inner = visit(def['in']);
        break;
      case 'enum':
        base ??= Object.values(def['entries'] as Record<string, string>)
          .map((v) => `\`${v}\``)
          .join(', ');
        break;
      default:
        base ??= String(def['type']);
    }
    return [...inner, ...own];
  };
  const constraints = visit(field);
  if (description === undefined || description.trim() === '') throw new UndescribedVariablesError([name]);
  const accepts = constraints.length === 0 ? (base ?? 'string') : `${base ?? 'string'}: ${constraints.join('; ')}`;
  const shownDefault = defaultText ?? defaultValue;
  return { accepts, defaultValue: shownDefault, required: !optional && shownDefault === undefined, description };
}

/** The variables of `schema` that carry no description. */
export function undescribedVariables(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape).flatMap(([name, field]) => {
    try {
      inspect(name, field as z.ZodType);
      return [];
    } catch (err: unknown) {
      if (err instanceof UndescribedVariablesError) return [name];
      throw err;
    }
  });
}

/**
 * Every variable of a config schema (keys are variable names) with what it accepts, its default,
 * whether it is required and secret, and its description. Throws UndescribedVariablesError naming
 * every variable without a description: the reference is generated from the schema alone.
 */
export function describeVariables(schema: z.ZodObject): VariableReference[] {
  const missing = undescribedVariables(schema);
  if (missing.length > 0) throw new UndescribedVariablesError(missing);
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    ...inspect(name, field as z.ZodType),
    secret: isSecretField(name, field),
  }));
}
