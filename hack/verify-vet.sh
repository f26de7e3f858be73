#!/usr/bin/env bash
# go vet of the project module, with the build tags of its suites.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

(cd "${ROOT}" && go vet -tags e2e,node ./...) ||
  kep::log::error_exit "vet: fix the go vet findings above in the project module."
