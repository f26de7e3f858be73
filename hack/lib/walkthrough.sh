# shellcheck shell=bash
# Helpers for the walkthroughs of make run (hack/internal/walkthrough-*.sh): they print
# each kubectl command the way a user would type it, then run it. Source it;
# do not run it. KUBECTL is the kubectl to run.

kep::walkthrough::kubectl() { "${KUBECTL:-kubectl}" "$@"; }
kep::walkthrough::step() { printf '\n== %s\n' "$*"; }
# kep::walkthrough::typed prints a kubectl command line the way a user would type it.
kep::walkthrough::typed() {
  local arg line="$ kubectl"
  for arg in "$@"; do
    if [[ "${arg}" =~ ^[A-Za-z0-9_./=:-]+$ ]]; then
      line+=" ${arg}"
    else
      line+=" '${arg}'"
    fi
  done
  echo "${line}"
}
kep::walkthrough::show() {
  kep::walkthrough::typed "$@"
  kep::walkthrough::kubectl "$@"
}
# kep::walkthrough::rejected runs kubectl, which must fail, and prints the server's message.
kep::walkthrough::rejected() {
  kep::walkthrough::typed "$@"
  local out
  if out=$(kep::walkthrough::kubectl "$@" 2>&1); then
    echo "${out}"
    echo "!!! the API server accepted a change that it must reject" >&2
    exit 1
  fi
  echo "${out}" | head -n 3
}
