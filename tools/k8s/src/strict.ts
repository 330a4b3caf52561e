import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { K8sObject } from '@wordgame/testkit';
import { modelModule } from './validate.js';

/**
 * Fields the Kubernetes API does not know (a misspelt `readinesProbe` is valid JSON Schema, since
 * the API's schemas allow extra properties, and the API server drops it with a warning): each
 * object is type-checked as an object literal of its kubernetes-models interface (`I<Kind>`), whose
 * excess-property check names every unknown field and every wrong type. Returns, per object in
 * order, the compiler's messages (empty = no unknown field).
 */
export function unknownFields(objects: readonly K8sObject[]): string[][] {
  const here = mkdtempSync(join(import.meta.dirname, '.strict-'));
  try {
    const file = join(here, 'objects.ts');
    const lines = objects.map((o, i) => {
      const type = `import('${modelModule(o.apiVersion, o.kind)}').I${o.kind}`;
      return `export const o${i}: ${type} = ${JSON.stringify(o)};`;
    });
    writeFileSync(file, `${lines.join('\n')}\n`);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const found: string[][] = objects.map(() => []);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      if (!d.file || d.start === undefined || d.file.fileName !== file) continue;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      found[line]?.push(ts.flattenDiagnosticMessageText(d.messageText, ' '));
    }
    return found;
  } finally {
    rmSync(here, { recursive: true, force: true });
  }
}
