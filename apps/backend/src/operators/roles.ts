import type { OperatorRole } from './operators.table.js';

/** Every console role; each gates its own pages and actions (none implies another). */
export const OPERATOR_ROLES: readonly OperatorRole[] = ['viewer', 'refunder', 'catalog_editor', 'moderator', 'granter'];

/** True when `value` names a console role. */
export function isOperatorRole(value: string): value is OperatorRole {
  return (OPERATOR_ROLES as readonly string[]).includes(value);
}

/** Parses a comma-separated role list (CLI input); throws naming the first unknown role. */
export function parseRoles(list: string): OperatorRole[] {
  const roles = list
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r.length > 0);
  const unknown = roles.find((r) => !isOperatorRole(r));
  if (unknown !== undefined) throw new RangeError(`unknown role "${unknown}" (roles: ${OPERATOR_ROLES.join(', ')})`);
  return [...new Set(roles as OperatorRole[])];
}
