import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Variables of a config schema that the README's "Configuration" section never names: the README is
 * the operator's only reference, so an undocumented variable is a bug the tests catch.
 */
export function undocumentedVariables(root: string, variables: readonly string[]): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Configuration');
  const end = readme.indexOf('\n## ', start + 1);
  const section = start < 0 ? '' : readme.slice(start, end < 0 ? undefined : end);
  return variables.filter((name) => !new RegExp(`\`${name}\``).test(section));
}
