/** The operator's policy pages, as the gateway states them for this page. */
export interface PolicyLinks {
  privacyPolicyUrl: string;
  termsOfServiceUrl: string;
}

/**
 * The policy links the gateway put on the page's `<html>` (`data-privacy-policy-url`,
 * `data-terms-of-service-url`, from PRIVACY_POLICY_URL and TERMS_OF_SERVICE_URL); null when either
 * is missing or not an https URL (the page served by Vite's dev server has none).
 */
export function policyLinks(root: HTMLElement): PolicyLinks | null {
  const privacyPolicyUrl = httpsUrl(root.dataset['privacyPolicyUrl']);
  const termsOfServiceUrl = httpsUrl(root.dataset['termsOfServiceUrl']);
  return privacyPolicyUrl && termsOfServiceUrl ? { privacyPolicyUrl, termsOfServiceUrl } : null;
}

function httpsUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}
