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
# Every alert of alerts.yml with its component label; each must be in this list (checked below).
routed="BotDisconnected=botlink BotPlatformUnreachable=botlink BotRateLimitedSustained=botlink BotDeadLetters=botlink
  BotDuplicateUpdateOwners=botlink CardPaymentStuckPending=payments ProviderErrorsSustained=payments UnmatchedPayment=payments
  UnmatchedRefundFailed=payments ReconciliationMismatch=payments BackendDown=backend BackendNotReady=backend"
for alert in $(sed -n 's/^ *- alert: *//p' prometheus/alerts.yml); do
  [[ " $(echo $routed) " == *" $alert="* ]] || { echo "ops/check.sh: $alert is not in the routing check list" >&2; exit 1; }
done
# The deploy's config and the dev sandbox's (the mail catcher as smarthost, no TLS) route alike.
for config in alertmanager/alertmanager.yml alertmanager/alertmanager.dev.yml; do
  amtool check-config "$config"
  # Every alert reaches the operators' mailbox (labels as alerts.yml sets them): alert=component.
  for pair in $routed; do
    alert=${pair%%=*} component=${pair#*=}
    amtool config routes test --config.file="$config" --verify.receivers=operator-email \
      "alertname=$alert" "component=$component" >/dev/null 2>&1 || { echo "ops/check.sh: $alert does not route to operator-email in $config" >&2; exit 1; }
  done
done
grep -q '^  smtp_smarthost: mailcatcher:1025$' alertmanager/alertmanager.dev.yml || { echo "ops/check.sh: the dev Alertmanager does not send to the mail catcher" >&2; exit 1; }
echo "ops/check.sh: ok"
