import fc from 'fast-check';

/** Seed and scale of every hostile-input run: fixed by default so CI is repeatable; FUZZ_SEED / FUZZ_SCALE change them. */
export const FUZZ_SEED = Number(process.env['FUZZ_SEED'] ?? '20240808');
export const FUZZ_SCALE = Math.max(1, Number(process.env['FUZZ_SCALE'] ?? '1'));

/** Strings a hostile client sends: unicode, control characters, markup, SQL, path tricks, very long ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '<script>alert(1)</script>',
    "' or 1=1 --",
    '"; drop table accounts; --',
    '../../etc/passwd',
    '%00',
    '${jndi:ldap://x}',
    '{{7*7}}',
    '\u202etxt.exe',
    'NaN',
    'Infinity',
    '-0',
    '1e309',
    '0x7fffffff',
    '__proto__',
    'constructor',
  ),
  fc.nat({ max: 70_000 }).map((n) => 'x'.repeat(n)),
);

/** Numbers that break naive parsers: huge, negative, fractional, beyond 2^53 and int64. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -1, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 1e308, -1e308, 0.5, Number.MAX_SAFE_INTEGER),
);

/** Decimal-looking strings that are not canonical positive int64 ids. */
export const badIdString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-1', '01', '1.0', '1e3', '0x10', ' 1', '1 ', '+1', '9223372036854775808', '99999999999999999999999999', '١٢٣'),
  fc.bigInt({ min: 2n ** 63n, max: 10n ** 40n }).map(String),
  fc.bigInt({ min: -(10n ** 20n), max: -1n }).map(String),
  hostileString.filter((s) => !/^[1-9][0-9]*$/.test(s)),
);

/** Canonical ids that name nothing in a test database (far beyond any serial it hands out). */
export const absentId: fc.Arbitrary<string> = fc.bigInt({ min: 10n ** 12n, max: 2n ** 63n - 1n }).map(String);

/** Any JSON value that is not an object. */
export const nonObject: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber.filter(Number.isFinite),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
);

/** A value of the wrong type for a field that wants a string (or a string id/amount). */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  hostileNumber.filter(Number.isFinite),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** What one field of a template becomes to make the body certainly invalid. */
export type FieldBreaker = fc.Arbitrary<unknown>;

/**
 * Bodies derived from a template that are each invalid by construction: a non-object, a random
 * object carrying a key no schema has (every body schema is strict), the template with one field
 * broken by its breaker, or the template missing one required field.
 */
export function hostileBody(
  template: Record<string, unknown>,
  breakers: Record<string, FieldBreaker>,
  required: readonly string[],
): fc.Arbitrary<unknown> {
  const keys = Object.keys(breakers);
  const options: fc.Arbitrary<unknown>[] = [
    nonObject,
    fc
      .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })
      .map((d) => ({ ...d, '\u0000not_a_field': true })),
    fc
      .record({ extra: hostileString.filter((k) => !(k in template) && k !== '__proto__'), value: fc.jsonValue({ maxDepth: 2 }) })
      .map(({ extra, value }) => ({
        ...template,
        [extra === '' ? '\u0000' : extra]: value,
      })),
  ];
  if (keys.length > 0) {
    options.push(fc.constantFrom(...keys).chain((key) => (breakers[key] ?? notAString).map((bad) => ({ ...template, [key]: bad }))));
  }
  if (required.length > 0) {
    options.push(
      fc.constantFrom(...required).map((key) => {
        const copy: Record<string, unknown> = { ...template };
        delete copy[key];
        return copy;
      }),
    );
  }
  return fc.oneof(...options);
}

/** A path segment a hostile client puts where an id belongs: junk (percent-encoded or raw) or an absent id. */
export const hostilePathId: fc.Arbitrary<string> = fc.oneof(
  badIdString.filter((s) => s.length < 1_000).map(enc),
  absentId,
  fc.uuid(),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%2e%2e', '%2F', 'a%00b', '%C0%AF'),
);

/** Percent-encodes any string, lone surrogates included (they become U+FFFD, as a browser would send them). */
export function enc(s: string): string {
  return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));
}
