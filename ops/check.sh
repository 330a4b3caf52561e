#!/usr/bin/env bash
# Checks the monitoring configuration: the alert rules parse, their unit tests pass, the Prometheus
# config loads them, and the Alertmanager config is valid. Exits non-zero on the first failure.
# Needs Debian's prometheus (promtool) and prometheus-alertmanager (amtool).
set -euo pipefail
cd "$(dirname "$0")"

for tool in promtool amtool; do
  command -v "$tool" >/dev/null || { echo "ops/check.sh: $tool not found (apt-get install prometheus prometheus-alertmanager)" >&2; exit 1; }
done

promtool check rules prometheus/alerts.yml
promtool test rules prometheus/alerts.test.yml
promtool check config prometheus/prometheus.yml
amtool check-config alertmanager/alertmanager.yml
# Every bot-link alert reaches the operators' mailbox (labels as alerts.yml sets them).
for alert in BotDisconnected BotPlatformUnreachable BotRateLimitedSustained BotDeadLetters BotDuplicateUpdateOwners; do
  amtool config routes test --config.file=alertmanager/alertmanager.yml --verify.receivers=operator-email \
    "alertname=$alert" component=botlink >/dev/null 2>&1 || { echo "ops/check.sh: $alert does not route to operator-email" >&2; exit 1; }
done
echo "ops/check.sh: ok"
