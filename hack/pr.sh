#!/usr/bin/env bash
# Writes the series as the stack of pull requests upstream takes it as,
# releases/BASE/prs.md: a branch per pull request in the tree, each on the one
# before it (kep-6318/NN-NAME), with the submitter as the author and committer
# of every commit, and the text of each pull request, _output/pr/BASE/NN-NAME.md,
# ending with the template's "AI usage disclosure" section. The feature
# gate's owner line stays the KEP owner's, as in the series, unless
# _output/pr-owner says 'submitter' (once agreed with them). Then it checks
# that each branch builds and passes, on its own, the tests of the packages
# it changes, as make test-series does for each commit: a prefix of the
# stack must work without the rest.
#
# The submitter's name, e-mail and GitHub handle are asked for once, on the
# terminal, and kept in _output/pr-identity (three lines); so is their AI
# usage disclosure, in _output/pr-ai-disclosure. It refuses to write anything
# without them, or with a placeholder in them, in a commit or in a pull
# request's text.
set -euo pipefail
# shellcheck source=hack/lib/init.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
# shellcheck source=hack/lib/golang.sh
source "${ROOT}/hack/lib/golang.sh"
# shellcheck source=hack/lib/tree.sh
source "${ROOT}/hack/lib/tree.sh"

prs="${RELEASE}/prs.md"
[[ -f "${prs}" ]] || kep::log::error_exit "releases/${BASE} has no prs.md: its series is not sent as pull requests."
identity="${OUTPUT}/pr-identity"
disclosure="${OUTPUT}/pr-ai-disclosure"
# Whose the feature gate's owner line is: the KEP owner's, as in the series,
# unless _output/pr-owner says 'submitter' (once agreed with them).
owner_file="${OUTPUT}/pr-owner"
owner_mode=$(cat "${owner_file}" 2>/dev/null || true)
[[ -z "${owner_mode}" || "${owner_mode}" == submitter ]] ||
  kep::log::error_exit "${owner_file#"${ROOT}/"} says '${owner_mode}': remove it to keep the feature gate's owner line, or write 'submitter' to it to make the line yours."

# Placeholders that no pull request may carry.
PLACEHOLDERS='PLACEHOLDER|@GATE_VERSION@|TODO\(submitter\)|<your |kubernetes\.invalid'

# ask_identity asks for the submitter's identity on the terminal, once.
ask_identity() {
  [[ -t 0 ]] || kep::log::error_exit "make pr needs the submitter's name, e-mail and GitHub handle, for the commits and the feature gate's owner: run it on a terminal, which asks for them once, or write them to ${identity#"${ROOT}/"}, one a line."
  local name email handle
  read -rp "Your name, as in the commits: " name
  read -rp "Your e-mail, as in the commits (the one your CLA is signed with): " email
  read -rp "Your GitHub handle, without @: " handle
  mkdir -p "${OUTPUT}"
  printf '%s\n%s\n%s\n' "${name}" "${email}" "${handle}" >"${identity}"
}

[[ -f "${identity}" ]] || ask_identity
{ read -r NAME && read -r EMAIL && read -r HANDLE; } <"${identity}" ||
  kep::log::error_exit "${identity#"${ROOT}/"} must hold three lines: your name, your e-mail and your GitHub handle."
[[ -n "${NAME}" && ! "${NAME}" =~ ${PLACEHOLDERS}|^(TODO|TBD|name)$ ]] ||
  kep::log::error_exit "the submitter's name in ${identity#"${ROOT}/"} is empty or a placeholder ('${NAME}')."
[[ "${EMAIL}" =~ ^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$ && ! "${EMAIL}" =~ \.(invalid|example|test|local)$|@example\.(com|org|net)$ ]] ||
  kep::log::error_exit "the submitter's e-mail in ${identity#"${ROOT}/"} ('${EMAIL}') is not one a CLA check accepts."
[[ "${HANDLE}" =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,38})$ && ! "${HANDLE}" =~ ^(PLACEHOLDER|TODO|TBD)$ ]] ||
  kep::log::error_exit "the submitter's GitHub handle in ${identity#"${ROOT}/"} ('${HANDLE}') is not a GitHub handle."

# The pull request template's "AI usage disclosure": whether AI tools helped
# create the pull requests, and how, in the submitter's words.
if [[ ! -s "${disclosure}" ]]; then
  [[ -t 0 ]] || kep::log::error_exit "make pr needs your AI usage disclosure, the last section of upstream's pull request template: whether AI tools helped create these pull requests, and how. Run it on a terminal, which asks for it once, or write it to ${disclosure#"${ROOT}/"}."
  read -rp "Your AI usage disclosure, for each pull request's text (whether AI tools helped create it, and how): " answer
  printf '%s\n' "${answer}" >"${disclosure}"
fi
DISCLOSURE=$(<"${disclosure}")
[[ "${DISCLOSURE}" =~ [[:alpha:]] && ! "${DISCLOSURE}" =~ ${PLACEHOLDERS}|^[[:space:]]*(TODO|TBD|N/?A)[[:space:]]*$ ]] ||
  kep::log::error_exit "the AI usage disclosure in ${disclosure#"${ROOT}/"} is empty or a placeholder: say whether AI tools helped create these pull requests, and how."

kep::tree::ensure_checkout
work=$(kep::tree::unexported_work)
[[ -z "${work}" ]] || kep::log::error_exit "${TREE} holds work that is not in ${SERIES}/: run 'make patches BASE=${BASE}' first, so that the pull requests are the series."
! kep::tree::series_changed || kep::log::error_exit "${SERIES}/ changed since ${TREE} was applied (a git pull, say): run 'make checkout BASE=${BASE}' first, so that the pull requests are the series."

# The series' commits, in order.
commits=()
kep::util::lines commits kep::tree::git rev-list --reverse "$(kep::tree::base_commit)..HEAD"

# The pull requests: NUMBER NAME FIRST LAST, one a line.
pr_list() {
  awk '
    /^## [0-9]+\. / { n = $2; sub(/\.$/, "", n); name = $3 }
    /^- commits: / && n { split($3, r, "-"); print n, name, r[1], (r[2] == "" ? r[1] : r[2]); n = "" }
  ' "${prs}"
}

# pr_field N FIELD prints the FIELD line (title, labels) of pull request N.
pr_field() {
  awk -v n="$1" -v f="$2" '
    /^## [0-9]+\. / { cur = $2; sub(/\.$/, "", cur) }
    cur == n && index($0, "- " f ": ") == 1 { sub("^- " f ": ", ""); print; exit }
  ' "${prs}"
}

# pr_body N prints the text of pull request N: what follows its list of fields.
pr_body() {
  awk -v n="$1" '
    /^## [0-9]+\. / { cur = $2; sub(/\.$/, "", cur); started = 0; next }
    cur != n { next }
    !started && /^- (commits|labels|title): / { next }
    !started && /^$/ { next }
    { started = 1; print }
  ' "${prs}"
}

prlines=()
kep::util::lines prlines pr_list
((${#prlines[@]})) || kep::log::error_exit "releases/${BASE}/prs.md names no pull request ('## N. name' and '- commits: FIRST-LAST')."
expected=1
for line in "${prlines[@]}"; do
  read -r n name first last <<<"${line}"
  ((first == expected && last >= first && last <= ${#commits[@]})) ||
    kep::log::error_exit "releases/${BASE}/prs.md: pull request ${n} (${name}) has commits ${first}-${last}; the pull requests must take the ${#commits[@]} commits of ${SERIES}/ in order, each once."
  expected=$((last + 1))
done
((expected == ${#commits[@]} + 1)) ||
  kep::log::error_exit "releases/${BASE}/prs.md leaves commits ${expected}-${#commits[@]} of ${SERIES}/ in no pull request."

# A branch that holds commits make pr did not write (a review fix, a rebase
# onto upstream master) is not written again: that would lose them.
for line in "${prlines[@]}"; do
  read -r n name _ <<<"${line}"
  branch="kep-6318/$(printf '%02d' "${n}")-${name}"
  work=$(kep::tree::pr_branch_work "${branch}")
  [[ -z "${work}" ]] ||
    kep::log::error_exit "the branch ${branch} in ${TREE} has commits that make pr did not write:
${work}
Fold them into the series' commits in ${TREE} and 'make patches${MAKE_BASE}', or push the branch; then delete it ('git -C ${TREE} branch -D ${branch}') and run 'make pr${MAKE_BASE}' again."
done

out="${OUTPUT}/pr/${BASE}"
rm -rf "${out}"
mkdir -p "${out}"
export GIT_AUTHOR_NAME="${NAME}" GIT_AUTHOR_EMAIL="${EMAIL}" GIT_COMMITTER_NAME="${NAME}" GIT_COMMITTER_EMAIL="${EMAIL}"
current=$(kep::tree::git symbolic-ref -q --short HEAD || kep::tree::git rev-parse HEAD)
restore() { kep::tree::git checkout -q "${current}"; }
kep::util::trap_add restore EXIT

parent=$(kep::tree::base_commit)
branches=()
for line in "${prlines[@]}"; do
  read -r n name first last <<<"${line}"
  branch="kep-6318/$(printf '%02d' "${n}")-${name}"
  kep::tree::git checkout -q -B "${branch}" "${parent}"
  for ((i = first; i <= last; i++)); do
    commit=${commits[i - 1]}
    kep::tree::git cherry-pick --allow-empty "${commit}" >/dev/null
    # With 'submitter' in pr-owner, the feature gate's owner is the submitter.
    if [[ "${owner_mode}" == submitter ]] && kep::tree::git show --format= --name-only HEAD | grep -qx pkg/features/kube_features.go &&
      grep -q '^	// owner: .*$' "${KUBE_ROOT}/pkg/features/kube_features.go"; then
      sed -i "/^	\/\/ owner: /{N;/kep.k8s.io\/6318/s|// owner: [^\n]*|// owner: @${HANDLE}|}" "${KUBE_ROOT}/pkg/features/kube_features.go"
      kep::tree::git add pkg/features/kube_features.go
    fi
    kep::tree::git commit -q --amend --no-edit --reset-author --allow-empty
  done
  kep::tree::git update-ref "${PR_REFS}/${branch}" HEAD
  {
    printf '# %s\n\n' "$(pr_field "${n}" title)"
    printf 'Branch: %s, on %s\n\n' "${branch}" "$( ((n == 1)) && echo "${BASE_TAG}" || echo "${branches[-1]}")"
    pr_body "${n}"
    printf '\n#### AI usage disclosure:\n\n%s\n' "${DISCLOSURE}"
    # The kinds are in the text's first section; the other labels are set
    # with Prow's commands.
    echo
    for label in $(pr_field "${n}" labels | tr ',' ' '); do
      [[ "${label}" == kind/* ]] || printf '/%s %s\n' "${label%%/*}" "${label#*/}"
    done
  } >"${out}/$(printf '%02d' "${n}")-${name}.md"
  branches+=("${branch}")
  parent=${branch}
  kep::log::status "pr: ${branch}: commits ${first}-${last}, $(pr_field "${n}" title)"
done
restore

# Nothing written may carry a placeholder.
if grep -nE "${PLACEHOLDERS}" "${out}"/*.md >&2 ||
  kep::tree::git log --format='%an <%ae>%n%B' "$(kep::tree::base_commit)..${branches[-1]}" | grep -nE "${PLACEHOLDERS}" >&2 ||
  kep::tree::git diff "$(kep::tree::base_commit)" "${branches[-1]}" | grep -E '^\+' | grep -nE "${PLACEHOLDERS}" >&2; then
  kep::log::error_exit "the pull requests carry a placeholder (above): fix releases/${BASE}/prs.md or the series."
fi
owner_of() { kep::tree::git show "$1:pkg/features/kube_features.go" | grep -B1 -A1 'kep.k8s.io/6318' | grep -o 'owner: @[A-Za-z0-9-]*' || true; }
owner=$(owner_of "${branches[-1]}")
if [[ "${owner_mode}" == submitter ]]; then
  [[ "${owner}" == "owner: @${HANDLE}" ]] ||
    kep::log::error_exit "the feature gate's owner on ${branches[-1]} is '${owner}', not the submitter @${HANDLE}."
  kep::log::status "pr: the feature gate's owner line is yours, @${HANDLE} (${owner_file#"${ROOT}/"}): agree it with the KEP's owner, $(owner_of HEAD | sed 's/owner: //'), first."
else
  [[ -n "${owner}" && "${owner}" == "$(owner_of HEAD)" ]] ||
    kep::log::error_exit "the feature gate's owner on ${branches[-1]} is '${owner}', not the series' $(owner_of HEAD)."
  kep::log::status "pr: the feature gate's owner line stays the KEP owner's, ${owner#owner: }, as in the series; 'submitter' in ${owner_file#"${ROOT}/"} makes it yours, once agreed with them."
fi

# Each branch on its own: the packages it changes since the branch before it
# build and pass.
kep::golang::test_stack "${OUTPUT}/pr-check/${BASE}" pr \
  "fix its commits in ${TREE}, 'make patches${MAKE_BASE}', and run 'make pr${MAKE_BASE}' again." "${branches[@]}"
kep::log::status "pr: ${#branches[@]} branches in ${TREE} (kep-6318/*), by ${NAME} <${EMAIL}>; their texts in ${out#"${ROOT}/"}/. Push them to your fork in this order, and open each pull request on the one before."
