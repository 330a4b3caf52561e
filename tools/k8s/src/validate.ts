import type { K8sObject } from '@wordgame/testkit';

/** What the schema validation found in one object: `kind/name` and ajv's messages (empty = valid). */
export interface SchemaResult {
  object: string;
  problems: string[];
}

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/**
 * The module of kubernetes-models that holds a kind's model: `kubernetes-models/<apiVersion>/<Kind>`
 * (`v1` for the core group). Its validator is ajv code generated from the Kubernetes OpenAPI document
 * of the release the package tracks (required fields, types, enums, formats such as quantities).
 */
export function modelModule(apiVersion: string, kind: string): string {
  if (!/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind))
    throw new Error(`not a Kubernetes apiVersion/kind: ${apiVersion}/${kind}`);
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/**
 * Validates each object against the Kubernetes API schema of its apiVersion and kind. An object
 * whose kind the schemas do not know (a typo, or a custom resource) is a problem, never skipped.
 */
export async function validateSchemas(objects: readonly K8sObject[]): Promise<SchemaResult[]> {
  const results: SchemaResult[] = [];
  for (const o of objects) {
    const object = `${o.kind}/${o.metadata?.name ?? '(no name)'}`;
    let Model: ModelClass | undefined;
    try {
      const mod = (await import(modelModule(o.apiVersion, o.kind))) as Record<string, unknown>;
      Model = mod[o.kind] as ModelClass | undefined;
    } catch {
      Model = undefined;
    }
    if (!Model) {
      results.push({ object, problems: [`no Kubernetes API schema for ${o.apiVersion} ${o.kind}`] });
      continue;
    }
    try {
      new Model(withoutBase64Breaks(o)).validate();
      results.push({ object, problems: [] });
    } catch (err: unknown) {
      results.push({ object, problems: [err instanceof Error ? err.message : String(err)] });
    }
  }
  return results;
}

/**
 * A Secret's (or ConfigMap's binaryData) base64 values without line breaks: kustomize folds long
 * values over lines, which the API server's base64 decoding skips but the schema's `byte` format
 * does not.
 */
function withoutBase64Breaks(o: K8sObject): K8sObject {
  const field = o.kind === 'Secret' ? 'data' : o.kind === 'ConfigMap' ? 'binaryData' : undefined;
  const values = field ? (o[field] as Record<string, unknown> | undefined) : undefined;
  if (!field || !values) return o;
  const unfolded = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v]));
  return { ...o, [field]: unfolded };
}
