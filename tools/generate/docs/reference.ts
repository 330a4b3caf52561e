import { renderAlerts } from './alerts.js';
import { renderConfig } from './config.js';
import { renderErrors } from './errors.js';
import { renderMetrics } from './metrics.js';
import { renderModules } from './modules.js';
import { renderRest } from './rest.js';

/** Where the references live, relative to the repository root (other docs link to these names). */
export const REFERENCE_DIR = 'docs/reference';

/**
 * Every generated reference page, path (relative to `root`) to content: configuration, errors,
 * REST, metrics, alerts, modules. Pure reading: nothing is written.
 */
export async function renderReferences(root: string): Promise<Map<string, string>> {
  return new Map([
    [`${REFERENCE_DIR}/config.md`, renderConfig()],
    [`${REFERENCE_DIR}/errors.md`, renderErrors()],
    [`${REFERENCE_DIR}/rest.md`, renderRest(root)],
    [`${REFERENCE_DIR}/metrics.md`, await renderMetrics()],
    [`${REFERENCE_DIR}/alerts.md`, renderAlerts(root)],
    [`${REFERENCE_DIR}/modules.md`, renderModules(root)],
  ]);
}
