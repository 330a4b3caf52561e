/** What pressing the confirmation page's button answered. */
export interface ConfirmPageResult {
  status: number;
  /** The result paragraph's `data-outcome` (`confirmed`, `error`, `refused`, `missing`). */
  outcome: string | undefined;
  /** The result paragraph's words. */
  message: string;
  html: string;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#96;': '`' };
const unescape = (value: string) => value.replace(/&(?:amp|lt|gt|quot|#39|#96);/g, (e) => ENTITIES[e] ?? e);

/** The confirmation page's form as a browser reads it: its action (absolute) and its hidden fields. */
export function confirmForm(html: string, pageUrl: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[unescape(input[1] ?? '')] = unescape(input[2] ?? '');
  }
  return { action: new URL(unescape(form[1] ?? ''), pageUrl).toString(), fields };
}

/** The outcome and words of a confirmation page. */
export function confirmOutcome(html: string): { outcome: string | undefined; message: string } {
  const result = /<p id="confirm-result"[^>]*data-outcome="([a-z]+)"[^>]*>([^<]*)<\/p>/.exec(html);
  return { outcome: result?.[1], message: unescape(result?.[2] ?? '') };
}

/**
 * Confirms an e-mail the way a player does: opens the mailed `link` (the page), then submits the
 * page's form (its hidden token and page token) as the one button does. Throws when the page
 * offers no form.
 */
export async function confirmByPage(link: string, headers: Record<string, string> = {}): Promise<ConfirmPageResult> {
  const page = await fetch(link, { headers: { accept: 'text/html', ...headers } });
  const form = confirmForm(await page.text(), link);
  if (!form) throw new Error(`the confirmation page at ${link} offers no form (${page.status})`);
  const res = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form.fields).toString(),
  });
  const html = await res.text();
  return { status: res.status, ...confirmOutcome(html), html };
}
