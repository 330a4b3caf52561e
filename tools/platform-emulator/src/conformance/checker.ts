import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import type { BotApiAnswer } from '../botApi.js';
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
  private readonly results = new Map<string, ValidateFunction>();
  private readonly update: ValidateFunction;
  private readonly error: ValidateFunction;

  constructor(schemaText: string = readFileSync(SCHEMA_PATH, 'utf8')) {
    this.ajv = new Ajv({ allErrors: true, strict: false });
    this.ajv.addSchema(JSON.parse(schemaText) as object, 'bot-api');
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
    return problems(validate, result);
  }

  /** The problems of one update (empty when it conforms). */
  checkUpdate(update: unknown): string[] {
    return problems(this.update, update);
  }

  /** The problems of an error envelope (empty when it conforms). */
  checkError(body: unknown): string[] {
    return problems(this.error, body);
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
    return this.ajv.compile({ $ref: `bot-api#/definitions/${name}` });
  }
}

const EMULATED: ReadonlySet<string> = new Set(METHOD_NAMES);

function isEmulated(method: string): method is EmulatedMethod {
  return EMULATED.has(method);
}

function problems(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return relevant(validate.errors ?? []).map(describe);
}

/** A union member is chosen by its `status` or `type` constant. */
const DISCRIMINATOR = /\/properties\/(status|type)\/const$/;

/**
 * The errors worth reading: within a union (ChatMember, TransactionPartner, ...) only those of the
 * members whose discriminator matched, so a restricted member missing a permission is reported as
 * that, not as six failed alternatives. Falls back to every error when no member matched.
 */
function relevant(errors: ErrorObject[]): ErrorObject[] {
  const rejected = errors
    .filter((e) => e.keyword === 'const' && DISCRIMINATOR.test(e.schemaPath))
    .map((e) => e.schemaPath.replace(DISCRIMINATOR, '/'));
  const kept = errors.filter((e) => e.keyword !== 'anyOf' && !rejected.some((branch) => e.schemaPath.startsWith(branch)));
  return kept.length > 0 ? kept : errors;
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
