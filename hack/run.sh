#!/usr/bin/env bash
# Starts a local cluster with MutableContainerProbes on and walks through the
# feature. The walkthrough needs the API validation patches of the series,
# which are not in patches/ yet.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

die "not yet: 'make run' needs the API server patches of KEP-6318 (probe updates in ValidatePodUpdate), which are not in patches/ yet. 'make build' builds the binaries with the feature gate registered."
