/**
 * `wordgame/no-elapsed-upper-bound`: a test may not assert that something took less than a
 * wall-clock bound. On a loaded machine any such bound fails (a CI node at load 20 turned `< 250 ms`
 * into 2,823 ms), so a test waits for the event or count it means and gives the wait a deadline
 * derived from what it waits for. Flagged: `expect(x).toBeLessThan(…)` / `toBeLessThanOrEqual(…)`
 * and `expect(x).not.toBeGreaterThan(…)` / `not.toBeGreaterThanOrEqual(…)` where `x` is, or is a
 * local constant initialised from, a difference involving a clock read (`Date.now()`,
 * `performance.now()`, `process.hrtime…`, `Date.parse(…)`, `new Date(…)`, `….getTime()`,
 * of a date), or a name that says it is one (`elapsed`, `took`, `duration`, `latency` in it). Lower bounds stay
 * allowed: a timer never fires early, so `elapsed >= gap` holds however busy the machine is.
 */

const UPPER = new Set(['toBeLessThan', 'toBeLessThanOrEqual']);
const LOWER = new Set(['toBeGreaterThan', 'toBeGreaterThanOrEqual']);
const DURATION_NAME = /elapsed|took|duration|latency/i;

/** @param {import('estree').Node} node */
function isClockRead(node) {
  if (node.type === 'CallExpression') {
    const callee = node.callee;
    if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier') {
      const prop = callee.property.name;
      const object = callee.object;
      if (object.type === 'Identifier') {
        if (object.name === 'Date' && (prop === 'now' || prop === 'parse')) return true;
        if (object.name === 'performance' && prop === 'now') return true;
      }
      if (prop === 'getTime') return true;
      if (
        object.type === 'MemberExpression' &&
        object.object.type === 'Identifier' &&
        object.object.name === 'process' &&
        object.property.type === 'Identifier' &&
        object.property.name === 'hrtime'
      )
        return true;
      if (object.type === 'Identifier' && object.name === 'process' && prop === 'hrtime') return true;
    }
  }
  if (node.type === 'NewExpression' && node.callee.type === 'Identifier' && node.callee.name === 'Date') return true;
  return false;
}

/**
 * True when `node` contains a subtraction one of whose sides reads a clock (directly or through
 * a local constant that does).
 * @param {import('estree').Node} node
 * @param {(name: string) => import('estree').Node | undefined} initOf
 * @param {number} depth
 * @returns {boolean}
 */
function isClockDifference(node, initOf, depth = 0) {
  if (depth > 4 || !node || typeof node !== 'object') return false;
  /** @param {import('estree').Node} n */
  const readsClock = (n) => {
    if (isClockRead(n)) return true;
    if (n.type === 'Identifier') {
      const init = initOf(n.name);
      return init !== undefined && depth < 4 && (isClockRead(init) || containsClockRead(init));
    }
    return containsClockRead(n);
  };
  if (node.type === 'BinaryExpression' && node.operator === '-') {
    if (readsClock(node.left) || readsClock(node.right)) return true;
  }
  if (node.type === 'Identifier') {
    const init = initOf(node.name);
    return init !== undefined && isClockDifference(init, initOf, depth + 1);
  }
  for (const key of Object.keys(node)) {
    if (key === 'parent') continue;
    const value = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[key];
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      if (
        child &&
        typeof child === 'object' &&
        'type' in child &&
        isClockDifference(/** @type {import('estree').Node} */ (child), initOf, depth + 1)
      )
        return true;
    }
  }
  return false;
}

/** @param {import('estree').Node} node */
function containsClockRead(node) {
  if (!node || typeof node !== 'object') return false;
  if (isClockRead(node)) return true;
  for (const key of Object.keys(node)) {
    if (key === 'parent') continue;
    const value = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[key];
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      if (child && typeof child === 'object' && 'type' in child && containsClockRead(/** @type {import('estree').Node} */ (child)))
        return true;
    }
  }
  return false;
}

/** @param {import('estree').Node} node */
function durationName(node) {
  if (node.type === 'Identifier') return DURATION_NAME.test(node.name) ? node.name : undefined;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') {
    return DURATION_NAME.test(node.property.name) ? node.property.name : undefined;
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noElapsedUpperBound = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid asserting an upper bound on elapsed wall-clock time in tests' },
    schema: [],
    messages: {
      elapsed:
        'Elapsed-time upper bound ({{what}}): a loaded machine breaks it. Wait for the event or count it stands for, with a deadline derived from what it waits for.',
    },
  },
  create(context) {
    const source = context.sourceCode;
    return {
      /** @param {import('estree').CallExpression & import('eslint').Rule.NodeParentExtension} node */
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
        const matcher = callee.property.name;
        let target = callee.object;
        let negated = false;
        while (
          target.type === 'MemberExpression' &&
          target.property.type === 'Identifier' &&
          ['not', 'resolves', 'rejects'].includes(target.property.name)
        ) {
          if (target.property.name === 'not') negated = !negated;
          target = target.object;
        }
        const upper = negated ? LOWER.has(matcher) : UPPER.has(matcher);
        if (!upper) return;
        if (target.type !== 'CallExpression' || target.callee.type !== 'Identifier' || target.callee.name !== 'expect') return;
        const subject = target.arguments[0];
        if (!subject || subject.type === 'SpreadElement') return;
        const scope = source.getScope(node);
        /** @param {string} name */
        const initOf = (name) => {
          for (let s = /** @type {import('eslint').Scope.Scope | null} */ (scope); s; s = s.upper) {
            const variable = s.set.get(name);
            if (!variable) continue;
            const def = variable.defs[0];
            if (
              def &&
              def.type === 'Variable' &&
              def.node.type === 'VariableDeclarator' &&
              def.node.init &&
              def.parent &&
              /** @type {{kind?: string}} */ (def.parent).kind === 'const'
            ) {
              return /** @type {import('estree').Node} */ (def.node.init);
            }
            return undefined;
          }
          return undefined;
        };
        const name = durationName(subject);
        if (name !== undefined || isClockDifference(subject, initOf)) {
          context.report({ node, messageId: 'elapsed', data: { what: name ?? source.getText(subject).slice(0, 60) } });
        }
      },
    };
  },
};
