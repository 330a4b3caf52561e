import fc from 'fast-check';
import { escapeHtml, html, raw } from '../src/http/html.js';
import { safeReturnPath } from '../src/console/return-path.js';
import { csvField } from '../src/console/pages/export.js';
import { encodeFilter, parseFilter } from '../src/console/filter.js';
import { formatAmount } from '../src/console/money.js';

describe('console escaping and return paths', () => {
  it('escapes every HTML-significant character and nothing else (property)', () => {
    const unescape = (s: string) =>
      s
        .replace(/&#96;/g, '`')
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&gt;/g, '>')
        .replace(/&lt;/g, '<')
        .replace(/&amp;/g, '&');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"'`]/);
        expect(unescape(out)).toBe(s);
      }),
    );
  });

  it('html`` escapes interpolations, keeps nested fragments, and prints nothing for null/false', () => {
    const name = '<script>alert("x")</script>';
    expect(html`<p title="${name}">${name}${null}${false}${[html`<b>${'&'}</b>`, 1n]}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;<b>&amp;</b>1</p>',
    );
    expect(html`${raw('<hr>')}`.value).toBe('<hr>');
  });

  it.each([
    'https://evil.example/',
    'http:/evil.example',
    '//evil.example/_gm/ledger',
    '/\\evil.example',
    '\\\\evil.example',
    '/_gm/\\evil',
    '/_gm//evil.example',
    '/_gm/%2F%2Fevil.example',
    '/_gm/%5cevil',
    '/_gm/%2e%2e/%2e%2e/evil',
    '/_gm/../../evil',
    '/_gm/%252f%252fevil',
    '%2F%2Fevil.example',
    '/%2F%2Fevil.example',
    '/_gm/ledger%0d%0aLocation:%20https://evil',
    '/_gm/ledger\r\nx',
    ' /_gm/ledger',
    'javascript:alert(1)',
    '/evil',
    '/_gmx/ledger',
    '/_gm',
    '/_gm/%',
    '',
  ])('refuses the return path %j', (path) => {
    expect(safeReturnPath(path)).toBeNull();
  });

  it.each([
    '/_gm/ledger',
    '/_gm/ledger?from=2025-01-01&to=2025-01-31&wallet=vk&kind=purchase&account=42&after=1736000000000000.17',
    '/_gm/users/12',
  ])('accepts the console path %j unchanged', (path) => {
    expect(safeReturnPath(path)).toBe(path);
  });

  it('encodes one canonical filter, defaulting to the last 30 UTC days, and refuses malformed values', () => {
    const now = new Date('2025-03-10T23:59:00Z');
    const parsed = parseFilter({ wallet: 'vk', account: '42', junk: 'x' }, now);
    expect(parsed).toEqual({ filter: { from: '2025-02-09', to: '2025-03-10', wallet: 'vk', rail: '', kind: '', account: '42' } });
    if ('filter' in parsed) expect(encodeFilter(parsed.filter)).toBe('from=2025-02-09&to=2025-03-10&wallet=vk&account=42');
    for (const bad of [
      { from: '2025-02-30' },
      { wallet: 'gold' },
      { kind: 'x' },
      { rail: 'A B' },
      { rail: 'paypal' },
      { account: '-1' },
      { from: '2025-03-10', to: '2025-03-01' },
    ]) {
      expect(parseFilter(bad, now)).toHaveProperty('error');
    }
  });

  it('writes CSV fields quoted when needed and defuses formulas in free text; formats minor units exactly', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("x")', true)).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('-40')).toBe('-40');
    expect(formatAmount(-49_905n, 'RUB')).toBe('-499.05 RUB');
    expect(formatAmount(9_007_199_254_740_993n, 'RUB')).toBe('90071992547409.93 RUB');
    expect(formatAmount(250n, 'XTR')).toBe('250 XTR');
  });
});
