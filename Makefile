# KEP-6318 mutable container probes: a patch series on upstream Kubernetes.
# Every target is a thin wrapper around a script in hack/.

SHELL := /usr/bin/env bash
WHAT ?=

.PHONY: all checkout patches port test test-e2e test-integration test-node test-docs test-upstream-e2e measure-node test-series test-differential test-fuzz bench verify update-generated build install-plugin release-plugin run node-up node-down clean help

all: test

help: ## Show the targets and the settings.
	@awk -F ':.*## ' '/^[a-z0-9-]+:.*## / {printf "%-18s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@printf '\nSettings (environment variables or make NAME=value):\n'
	@sed -n 's/^#: //p' $(MAKEFILE_LIST)

# The settings. Upstream's names where upstream has the setting, KEP_ otherwise.
#: BASE                    the upstream base, a folder of releases/ (default 1.37; 1.38 for the series that goes to master)
#: WHAT                    make test: go test only these packages (./pkg/...); make build: these commands (cmd/..., cmd/kubectl-probe for the plugin)
#: KUBE_TIMEOUT            go test's timeout flag in make test, test-series, test-integration and test-e2e (default -timeout=30m, integration 60m)
#: KUBE_TEST_ARGS          more go test arguments in make test, test-series, test-integration and test-e2e, such as -run TestX or -v
#: GOFLAGS                 go's own flags, passed through (GOFLAGS=-race)
#: KEP_API_PORT            the API server's port on 127.0.0.1 for make run and make node-up (default 6443)
#: KEP_RUN_MODE            make run: control-plane for the API server only, where a node cannot run
#: KEP_RUN_EXIT            make run: 1 stops after the walkthrough
#: KEP_NODE_APISERVER_GATE make node-up: MutableContainerProbes on kube-apiserver (default true)
#: KEP_NODE_KUBELET_GATE   make node-up: MutableContainerProbes on the kubelet (default true)
#: KEP_NODE_RUN            make test-node, make measure-node: the test/node tests to run (-run)
#: KEP_E2E_FOCUS           make test-upstream-e2e: the specs to run (a Ginkgo focus regexp)

# The maintainers' settings, one target's each. make help does not list them;
# make verify checks that every setting the scripts read is here.
#- KUBE_VERBOSE            verbosity of upstream's generators (make verify, make update-generated; default 1)
#- KEP_RUN_ETCD_PORT       make run in control-plane mode: etcd's port (default 23790)
#- KEP_NODE_APISERVER_ARGS make node-up: more kube-apiserver flags, split at spaces
#- KEP_NODE_APISERVER2_GATE make node-up: true or false starts a second kube-apiserver, on port 6444, with the gate so
#- KEP_NODE_BASE           make node-up: 1 runs the unpatched base release
#- KEP_NODE_SKIP_BUILD     make node-up: 1 uses the binaries and images already built
#- KEP_NODE_MEASURE        make test-node: 1 runs the measurements instead, as make measure-node does
#- KEP_NODE_TRIALS         make measure-node: trials per kind (default 20)
#- KEP_PLUGIN_SCALE        make test-e2e: 1 also measures kubectl probe on the 500 Pods of a ReplicaSet (TestPluginScale, docs/performance.md)
#- KEP_DOCS_GUIDE          make test-docs: the guide to run (default docs/changing-probes.md)
#- KEP_E2E_CONFIGS         make test-upstream-e2e: the configurations, in order (default "on off base")
#- KEP_E2E_PROCS           make test-node, make test-upstream-e2e: Ginkgo processes (default 6)
#- KEP_DIFF_SEED           make test-differential: the generator's seed (default 1)
#- KEP_DIFF_PAIRS          make test-differential: the number of Pod updates (default 30000)
#- KEP_DIFF_MUTANT         make test-differential: "<file in the tree>=<path> ..." swaps files of the patched tree, to see the checks fail
#- KEP_FUZZTIME            make test-fuzz: how long to fuzz (default 10m)
#- KEP_BENCHTIME           make bench: the -benchtime of one round (default 200ms)
#- KEP_BENCH_ROUNDS        make bench: interleaved rounds of the validation benchmarks (default 30)
#- KEP_BENCH_PROBER_ROUNDS make bench: interleaved rounds of the prober benchmarks (default 3)
#- KEP_VERIFY_UPSTREAM     make verify: 0 skips upstream's verify scripts and generated files
#- KEP_VERIFY_PROTOBUF     make verify, make update-generated: 0 skips generated.proto (needs protoc)
#- KEP_VERIFY_OPENAPI_SPEC make verify, make update-generated: 0 skips api/openapi-spec and api/discovery
#- KEP_RELEASE_URL         make release-plugin: where the archives will be downloaded from, which the krew manifest names (required)
#- KEP_PATCHES_FORCE       make patches: 1 writes the series even if it drops patches the tree never had, or is empty

checkout: ## Rebuild _output/kubernetes: upstream base plus the series, patches/ (BASE=1.38: _output/kubernetes-1.38).
	@hack/checkout.sh

patches: ## Export the commits of _output/kubernetes into the series, patches/.
	@hack/export-patches.sh

port: ## Carry what changed in patches/ into the series ported from it (BASE=1.38), and record it.
	@hack/port.sh

test: ## Run the project's tests, upstream's unit tests of what the series touches, the differential test, the integration tests and the black-box suite (WHAT=./pkg/... for the project's tests and go test of WHAT only).
	@WHAT="$(WHAT)" hack/test.sh

test-e2e: ## Run the project's black-box suite (test/e2e) against the built kube-apiserver, etcd and kubectl.
	@hack/test-e2e.sh

test-integration: ## Run the integration tests (real kube-apiserver and etcd) of the packages the series touches; builds etcd.
	@WHAT="$(WHAT)" hack/test-integration.sh

test-node: ## On a real single-node cluster: the feature's e2e specs of the series with the gate on, then the skew test (test/node) with the kubelet's gate off; needs root on Linux.
	@hack/test-node.sh

test-docs: ## Run the user guide, docs/changing-probes.md, on the real node: every command, and every output it shows compared; needs root on Linux.
	@hack/test-docs.sh

test-upstream-e2e: ## Run upstream's probe, sidecar and readiness e2e specs and the feature's on the real node with the gate on, off, and on the unpatched base, and compare (KEP_E2E_CONFIGS=, KEP_E2E_FOCUS=).
	@hack/test-upstream-e2e.sh

measure-node: ## Measure on the real node how fast probe changes take effect (docs/performance.md); KEP_NODE_TRIALS= trials per kind (default 20).
	@KEP_NODE_MEASURE=1 KEP_NODE_RUN='^TestMeasure' hack/test-node.sh

test-series: ## Check that the series bisects: each patch, applied in order, passes go vet and go test of the packages it touches.
	@hack/test-series.sh

test-differential: ## Run ValidatePodUpdate and Pod Security on the same generated Pod updates in the patched and the base tree and compare them (KEP_DIFF_SEED=, KEP_DIFF_PAIRS=).
	@hack/test-differential.sh

test-fuzz: ## Fuzz ValidatePodUpdate with mutable probes in the patched tree for KEP_FUZZTIME (default 10m): no panics, no changed arguments.
	@hack/test-fuzz.sh

bench: ## Run the same benchmarks in the base and the patched tree, interleaved, print benchstat and check the performance budget.
	@hack/bench.sh

verify: ## Check that the series applies, matches _output/kubernetes, is gofmt clean, and keeps upstream's lists and generated files in sync.
	@hack/verify.sh

update-generated: ## Regenerate upstream's generated files (API docs, OpenAPI, apply configurations, generated.proto, api/openapi-spec) inside _output/kubernetes.
	@hack/update-generated.sh

build: ## Build kube-apiserver, kubelet and kubectl from the patched tree, and the kubectl plugin kubectl-probe, into _output/bin.
	@WHAT="$(WHAT)" hack/build.sh

install-plugin: ## Install the kubectl plugin, kubectl-probe, with go install into go env GOBIN (default ~/go/bin), which must be on PATH for kubectl probe, and its completion, kubectl_complete-probe, beside it.
	@go install ./cmd/kubectl-probe
	@gobin=$$(go env GOBIN); gobin=$${gobin:-$$(go env GOPATH)/bin}; install -m 0755 cmd/kubectl-probe/kubectl_complete-probe "$$gobin/"; \
	printf '+++ installed %s/kubectl-probe and kubectl_complete-probe; kubectl probe --help says what it does\n' "$$gobin"

release-plugin: ## Build the kubectl plugin's release archives that its krew manifest (cmd/kubectl-probe/krew.yaml) names, and the manifest to publish, into _output/release (KEP_RELEASE_URL=).
	@hack/release-plugin.sh

run: ## Start a real single-node cluster with MutableContainerProbes on, walk through changing the probes of a running container, and stay up until Ctrl-C.
	@hack/run.sh

node-up: ## Build and start the single-node cluster in the background (KUBECONFIG=_output/node/state/kubeconfig).
	@hack/node-up.sh

node-down: ## Stop the single-node cluster and check that it left nothing behind.
	@hack/node-down.sh

clean: ## Remove _output/ (refuses while _output/kubernetes holds unexported work).
	@hack/clean.sh
