import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { code, header, table } from './markdown.js';

/** The Prometheus configuration whose `rule_files` hold every alert. */
export const PROMETHEUS_CONFIG = 'ops/prometheus/prometheus.yml';

type Json = Readonly<Record<string, unknown>>;

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** One alerting rule as the reference shows it. */
export interface AlertReference {
  readonly file: string;
  readonly group: string;
  readonly name: string;
  readonly expr: string;
  readonly for: string;
  readonly severity: string;
  readonly component: string;
  readonly summary: string;
  readonly description: string;
  readonly runbook: string;
}

/** Every alerting rule of the rule files the Prometheus configuration loads, in file order. */
export function alerts(root: string): AlertReference[] {
  const config = obj(parse(readFileSync(join(root, PROMETHEUS_CONFIG), 'utf8')));
  const files = list(config['rule_files']).map((f) => join(dirname(PROMETHEUS_CONFIG), String(f)));
  if (files.length === 0) throw new Error(`${PROMETHEUS_CONFIG} loads no rule files`);
  return files.flatMap((file) =>
    list(obj(parse(readFileSync(join(root, file), 'utf8')))['groups']).flatMap((g) => {
      const group = obj(g);
      return list(group['rules'])
        .map(obj)
        .filter((rule) => typeof rule['alert'] === 'string')
        .map((rule) => {
          const labels = obj(rule['labels']);
          const annotations = obj(rule['annotations']);
          const name = text(rule['alert']);
          if (text(annotations['summary']) === '') throw new Error(`${file}: alert ${name} has no summary annotation`);
          return {
            file,
            group: text(group['name']),
            name,
            expr: text(rule['expr']).replace(/\s+/g, ' '),
            for: text(rule['for']) || '0s (at once)',
            severity: text(labels['severity']),
            component: text(labels['component']),
            summary: text(annotations['summary']),
            description: text(annotations['description']).replace(/\s+/g, ' '),
            runbook: text(annotations['runbook_url']),
          };
        });
    }),
  );
}

/** docs/reference/alerts.md: one table per rule group, then each alert's description. */
export function renderAlerts(root: string): string {
  const all = alerts(root);
  const groups = [...new Set(all.map((a) => `${a.file}\u0000${a.group}`))].map((key) => {
    const [file, group] = key.split('\u0000') as [string, string];
    const members = all.filter((a) => a.file === file && a.group === group);
    return [
      `## ${group}`,
      '',
      `Rule file \`${file}\`.`,
      '',
      table(
        ['alert', 'severity', 'component', 'for', 'expression', 'summary'],
        members.map((a) => [code(a.name), a.severity, a.component, a.for, code(a.expr), a.summary]),
      ),
      '',
      ...members.flatMap((a) => [
        `### ${a.name}`,
        '',
        a.description === '' ? a.summary : a.description,
        ...(a.runbook === '' ? [] : ['', `Runbook: ${a.runbook}`]),
        '',
      ]),
    ].join('\n');
  });
  return [
    header('Alerts reference', `the alerting rules that \`${PROMETHEUS_CONFIG}\` loads`),
    "Alertmanager (`ops/alertmanager/`) routes every alert by its `component` label to the operators' e-mail,",
    'which does not go through the bot. `{{ $value }}` in a description is the value of the expression when',
    'the alert fired.',
    '',
    ...groups,
  ].join('\n');
}
