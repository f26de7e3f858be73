package series

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const patch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Dev <dev@example.invalid>
Date: Mon, 30 Nov 2026 00:00:00 +0000
Subject: [PATCH] KEP-6318: example

A commit message line that looks like a header:
--- a/not/a/file.go
---
diff --git a/pkg/features/kube_features.go b/pkg/features/kube_features.go
index 0123456789ab..ba9876543210 100644
--- a/pkg/features/kube_features.go
+++ b/pkg/features/kube_features.go
@@ -1,3 +1,3 @@
 package features
---- a/removed/line/looks/like/a/header.go
+++++ b/added/line/looks/like/a/header.go
diff --git a/pkg/old/gone.go b/pkg/old/gone.go
deleted file mode 100644
index 0123456789ab..000000000000
--- a/pkg/old/gone.go
+++ /dev/null
@@ -1 +0,0 @@
-package old
diff --git a/pkg/newpkg/new_test.go b/pkg/newpkg/new_test.go
new file mode 100644
index 000000000000..0123456789ab
--- /dev/null
+++ b/pkg/newpkg/new_test.go
@@ -0,0 +1 @@
+package newpkg
diff --git a/pkg/apis/core/validation/testdata/a/b.yaml b/pkg/apis/core/validation/testdata/a/b.yaml
index 0123456789ab..ba9876543210 100644
--- a/pkg/apis/core/validation/testdata/a/b.yaml
+++ b/pkg/apis/core/validation/testdata/a/b.yaml
@@ -1 +1 @@
-a: 1
+a: 2
diff --git a/test/reference/list.yaml b/test/reference/list.yaml
index 0123456789ab..ba9876543210 100644
--- a/test/reference/list.yaml
+++ b/test/reference/list.yaml
@@ -1 +1 @@
-a: 1
+a: 2
-- 
2.39.5
`

func writeSeries(t *testing.T, patches ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, p := range patches {
		name := filepath.Join(dir, strings.Repeat("0", 3)+string(rune('1'+i))+"-x.patch")
		if err := os.WriteFile(name, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, name)
	}
	return paths
}

func TestFiles(t *testing.T) {
	second := strings.Replace(patch, "pkg/newpkg/new_test.go", "pkg/newpkg/new.go", -1)
	got, err := Files(writeSeries(t, patch, second))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg/apis/core/validation/testdata/a/b.yaml",
		"pkg/features/kube_features.go",
		"pkg/newpkg/new.go",
		"pkg/newpkg/new_test.go",
		"pkg/old/gone.go",
		"test/reference/list.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Files() mismatch (-want +got):\n%s", diff)
	}
}

func TestFilesRejectsForeignHeaders(t *testing.T) {
	bad := strings.Replace(patch, "--- a/pkg/features/kube_features.go", "--- pkg/features/kube_features.go", 1)
	if _, err := Files(writeSeries(t, bad)); err == nil || !strings.Contains(err.Error(), "make patches") {
		t.Errorf("Files() error = %v, want one that names the header and 'make patches'", err)
	}
}

func TestPackages(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"pkg/features/kube_features.go",
		"pkg/newpkg/new_test.go",
		"pkg/apis/core/validation/validation.go",
		"test/reference/list.yaml",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{
		"pkg/apis/core/validation/testdata/a/b.yaml", // testdata counts for its package
		"pkg/features/kube_features.go",
		"pkg/newpkg/new_test.go",             // a package with only tests
		"pkg/old/gone.go",                    // deleted by the series
		"test/reference/list.yaml",           // no Go package
		"pkg/features/kube_features_test.go", // same package twice
	}
	got, err := Packages(root, files)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"./pkg/apis/core/validation", "./pkg/features", "./pkg/newpkg"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Packages() mismatch (-want +got):\n%s", diff)
	}
}
