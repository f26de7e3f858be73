# KEP-6318 mutable container probes: a patch series on upstream Kubernetes.
# Every target is a thin wrapper around a script in hack/.

SHELL := /usr/bin/env bash
WHAT ?=

.PHONY: all checkout patches test test-e2e test-integration test-node measure-node test-series test-differential test-fuzz bench verify update-generated build run node-up node-down clean help

all: test

help: ## Show the targets.
	@awk -F ':.*## ' '/^[a-z0-9-]+:.*## / {printf "%-18s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

checkout: ## Rebuild _output/kubernetes: upstream base plus patches/.
	@hack/checkout.sh

patches: ## Export the commits of _output/kubernetes into patches/.
	@hack/export-patches.sh

test: ## Run the project's, upstream's unit, integration and black-box tests of what the series touches (WHAT=./pkg/... for unit tests of WHAT only).
	@WHAT="$(WHAT)" hack/test.sh

test-e2e: ## Run the project's black-box suite (test/e2e) against the built kube-apiserver, etcd and kubectl.
	@hack/test-e2e.sh

test-integration: ## Run the integration tests (real kube-apiserver and etcd) of the packages the series touches; builds etcd.
	@WHAT="$(WHAT)" hack/test-integration.sh

test-node: ## Run the node end-to-end tests (test/node) on a real single-node cluster, with the kubelet's gate on, then off; needs root on Linux.
	@hack/test-node.sh

measure-node: ## Measure on the real node how fast probe changes take effect (docs/performance.md); KEP_NODE_TRIALS= trials per kind (default 20).
	@KEP_NODE_MEASURE=1 KEP_NODE_RUN='^TestMeasure' hack/test-node.sh

test-series: ## Check that the series bisects: each patch, applied in order, passes go vet and go test of the packages it touches.
	@hack/test-series.sh

test-differential: ## Run ValidatePodUpdate and Pod Security on the same generated Pod updates in the patched and the base tree and compare them (SEED=, PAIRS=).
	@hack/test-differential.sh

test-fuzz: ## Fuzz ValidatePodUpdate with mutable probes in the patched tree for FUZZTIME (default 10m): no panics, no changed arguments.
	@hack/test-fuzz.sh

bench: ## Run the same benchmarks in the base and the patched tree, interleaved, print benchstat and check the performance budget.
	@hack/bench.sh

verify: ## Check that the series applies, matches _output/kubernetes, is gofmt clean, and keeps upstream's lists and generated files in sync.
	@hack/verify.sh

update-generated: ## Regenerate upstream's generated files (API docs, OpenAPI, apply configurations, generated.proto, api/openapi-spec) inside _output/kubernetes.
	@hack/update-generated.sh

build: ## Build kube-apiserver, kubelet and kubectl from the patched tree into _output/bin.
	@WHAT="$(WHAT)" hack/build.sh

run: ## Start a real single-node cluster with MutableContainerProbes on, walk through changing the probes of a running container, and stay up until Ctrl-C.
	@hack/run.sh

node-up: ## Build and start the single-node cluster in the background (KUBECONFIG=_output/node/state/kubeconfig).
	@hack/node-up.sh

node-down: ## Stop the single-node cluster and check that it left nothing behind.
	@hack/node-down.sh

clean: ## Remove _output/ (refuses while _output/kubernetes holds unexported work).
	@hack/clean.sh
