#!/usr/bin/env bash
# Installs the Debian packages that the targets use (the list is in
# hack/lib/deps.sh; each target installs what it needs by itself). For a
# fresh machine that lacks even make:
#
#   hack/install-deps.sh            every package of the list
#   hack/install-deps.sh jq curl    these only
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

kep::deps::ensure "${@:-all}"
kep::log::status "the Debian packages are there: ${*:-all of hack/lib/deps.sh}"
