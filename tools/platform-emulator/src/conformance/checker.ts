import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import type { BotApiAnswer } from '../bot-api.js';
import { METHOD_NAMES } from '../methods/index.js';
import type { EmulatedMethod } from './published.js';
import { SCHEMA_PATH } from './schema.js';

/** One answer that is not what the Bot API publishes, with ajv's reasons. */
export interface Divergence {
  method: string;
  status: number;
  /** `result`, `error`, or `update <update_id>`. */
  part: string;
  problems: string[];
  body: unknown;
}

/**
 * Checks Bot API answers against the JSON Schema generated from @grammyjs/types
 * (schema/bot-api.schema.json): a 2xx `{ok: true, result}` against the method's published result
 * type (getUpdates: each update against Update), any other status against the error envelope
 * ApiError. Updates a test queued verbatim through the control API (`injectedUpdateIds`) are left
 * out: they are the test's content, not the emulator's.
 */
export class BotApiChecker {
  private readonly ajv: Ajv;
  private readonly definitions: Record<string, { properties?: Record<string, { const?: unknown }> }>;
  private readonly byRef = new Map<string, ValidateFunction>();
  private readonly results = new Map<string, ValidateFunction>();
  private readonly update: ValidateFunction;
  private readonly error: ValidateFunction;

  constructor(schemaText: string = readFileSync(SCHEMA_PATH, 'utf8')) {
    this.ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
    const schema = JSON.parse(schemaText) as { definitions: BotApiChecker['definitions'] };
    this.definitions = schema.definitions;
    this.ajv.addSchema(schema, 'bot-api');
    this.update = this.compile('BotApiUpdate');
    this.error = this.compile('BotApiError');
  }

  /** The problems of `result` as the answer of `method` (empty when it conforms). */
  checkResult(method: EmulatedMethod, result: unknown): string[] {
    let validate = this.results.get(method);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `bot-api#/definitions/BotApiResults/properties/${method}` });
      this.results.set(method, validate);
    }
    return this.problems(validate, result);
  }

  /** The problems of one update (empty when it conforms). */
  checkUpdate(update: unknown): string[] {
    return this.problems(this.update, update);
  }

  /** The problems of an error envelope (empty when it conforms). */
  checkError(body: unknown): string[] {
    return this.problems(this.error, body);
  }

  /** Every divergence in one answer the emulator sent. */
  check(answer: BotApiAnswer): Divergence[] {
    const { method, status, body } = answer;
    const found = (part: string, list: string[]): Divergence[] =>
      list.length === 0 ? [] : [{ method, status, part, problems: list, body }];
    if (status !== 200) return found('error', this.checkError(body));
    const envelope = body as { ok?: unknown; result?: unknown };
    if (envelope.ok !== true || !('result' in envelope)) return found('result', ['a 200 answer is not {ok: true, result}']);
    if (!isEmulated(method)) return found('result', [`${method} is not an emulated method`]);
    if (method !== 'getUpdates') return found('result', this.checkResult(method, envelope.result));
    if (!Array.isArray(envelope.result)) return found('result', ['getUpdates result is not an array']);
    const injected = new Set(answer.injectedUpdateIds);
    return envelope.result.flatMap((update: unknown) => {
      const id = (update as { update_id?: unknown }).update_id;
      if (typeof id === 'number' && injected.has(id)) return [];
      return found(`update ${String(id)}`, this.checkUpdate(update));
    });
  }

  private compile(name: string): ValidateFunction {
    let validate = this.byRef.get(name);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `bot-api#/definitions/${name}` });
      this.byRef.set(name, validate);
    }
    return validate;
  }

  private problems(validate: ValidateFunction, value: unknown): string[] {
    if (validate(value)) return [];
    return this.narrow(validate.errors ?? [], '').map(describe);
  }

  /**
   * The errors worth reading. A value that fails a union (ChatMember, TransactionPartner, ...)
   * fails every member, and ajv reports them all; when exactly one member's `status` or `type`
   * constant matches the value, only that member's errors are kept (a restricted member missing a
   * permission reads as that, not as six failed alternatives). Nested unions are narrowed the same way.
   */
  private narrow(errors: ErrorObject[], prefix: string): ErrorObject[] {
    const unions = errors.filter((e) => e.keyword === 'anyOf').sort((a, b) => a.instancePath.length - b.instancePath.length);
    for (const union of unions) {
      const member = this.memberFor(union);
      if (member === undefined) continue;
      const validate = this.compile(member);
      if (validate(union.data)) continue;
      const inner = this.narrow(validate.errors ?? [], prefix + union.instancePath);
      const under = (e: ErrorObject): boolean =>
        e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`);
      return this.narrow(
        errors.filter((e) => !under(e)),
        prefix,
      ).concat(inner);
    }
    return errors.map((e) => (prefix === '' ? e : { ...e, instancePath: prefix + e.instancePath }));
  }

  /** The one union member (definition name) whose discriminator constant the value carries, if any. */
  private memberFor(union: ErrorObject): string | undefined {
    const members = Array.isArray(union.schema) ? (union.schema as { $ref?: unknown }[]) : [];
    const data = union.data as Record<string, unknown> | null;
    if (typeof data !== 'object' || data === null) return undefined;
    const matching = members
      .map((m) => (typeof m.$ref === 'string' ? m.$ref.replace('#/definitions/', '') : ''))
      .filter((name) => {
        const props = this.definitions[name]?.properties;
        return ['status', 'type'].some((key) => props?.[key]?.const !== undefined && props[key].const === data[key]);
      });
    return matching.length === 1 ? matching[0] : undefined;
  }
}

const EMULATED: ReadonlySet<string> = new Set(METHOD_NAMES);

function isEmulated(method: string): method is EmulatedMethod {
  return EMULATED.has(method);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : error.keyword === 'required'
        ? ''
        : error.keyword === 'const'
          ? ` (${JSON.stringify((error.params as { allowedValue?: unknown }).allowedValue)})`
          : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}
