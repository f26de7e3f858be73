/*
Copyright The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package kepnode is a small e2e suite for make test-upstream-e2e: it
// registers only upstream's test/e2e/common/node specs, with the flags and
// the setup of test/e2e/e2e_test.go, so that it builds in a fraction of the
// time of the whole e2e.test. hack/test-upstream-e2e.sh adds this file to
// the tree with go test -overlay.
package kepnode

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/component-base/logs"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"
	testfixtures "k8s.io/kubernetes/test/fixtures"

	_ "k8s.io/kubernetes/test/e2e/common/node"
	_ "k8s.io/kubernetes/test/e2e/feature"

	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/utils/ktesting/format"
)

func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()

	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	testfiles.AddFileSource(testfixtures.GetTestFixturesFS())
	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) {
	logs.InitLogs()
	defer logs.FlushLogs()
	klog.EnableContextualLogging(true)
	gomega.RegisterFailHandler(framework.Fail)
	suiteConfig, reporterConfig := framework.CreateGinkgoConfig()
	ginkgo.RunSpecs(t, "KEP-6318 node e2e suite", suiteConfig, reporterConfig)
}

// --spec-dump writes a line of JSON for each spec, as upstream's suite
// does: make verify's e2e test ownership check (upstream's
// hack/verify-e2e-test-ownership.sh) reads it from a dry run.
var _ = ginkgo.ReportAfterSuite("spec dump", func(report ginkgo.Report) {
	if framework.TestContext.SpecSummaryOutput == "" {
		return
	}
	var b bytes.Buffer
	for _, spec := range report.SpecReports {
		data, err := spec.MarshalJSON()
		if err != nil {
			panic(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(framework.TestContext.SpecSummaryOutput, b.Bytes(), 0o644); err != nil {
		panic(err)
	}
})
