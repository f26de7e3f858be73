# Helpers for the walkthroughs of make run (hack/walkthrough-*.sh): they print
# each kubectl command the way a user would type it, then run it. Source it;
# do not run it. KUBECTL is the kubectl to run.

kubectl() { "${KUBECTL:-kubectl}" "$@"; }
step() { printf '\n== %s\n' "$*"; }
# typed prints a kubectl command line the way a user would type it.
typed() {
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
show() {
  typed "$@"
  kubectl "$@"
}
# rejected runs kubectl, which must fail, and prints the server's message.
rejected() {
  typed "$@"
  local out
  if out=$(kubectl "$@" 2>&1); then
    echo "${out}"
    echo "!!! the API server accepted a change that it must reject" >&2
    exit 1
  fi
  echo "${out}" | head -n 3
}
