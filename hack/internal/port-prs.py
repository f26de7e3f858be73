#!/usr/bin/env python3
"""Writes releases/BASE/prs.md for a port (1.37, 1.38) from releases/master/prs.md.

The ports' series are the master series on another base, commit for commit,
so their pull requests are master's: the same commits, labels, titles and
texts, with the base's release where a text names one. Only master's file is
edited by hand; make port runs this when it records a port, and make verify (prs) checks
that each port's file is what it writes.

    hack/internal/port-prs.py RELEASES BASE           write RELEASES/BASE/prs.md
    hack/internal/port-prs.py RELEASES BASE --check   fail if it differs

RELEASES is the releases/ directory (the harness's self-test works on a copy).
"""
import re
import sys

releases, base = sys.argv[1:3]
check = sys.argv[3:] == ["--check"]
version = re.search(r"^KUBE_VERSION=(\S+)$", open(f"{releases}/{base}/upstream.env").read(), re.M).group(1)
master = open(f"{releases}/master/prs.md").read()

# The texts of the pull requests, and the owner's section, from master's file.
body = master[master.index("## The feature gate's owner"):]
body = body.replace("at\n1.39)", f"at\n{base})")
body = body.replace("> v1.38.0-beta.0 included.", f"> {version} included.")
if re.search(r"\b1\.39\b", body):
    sys.exit("releases/master/prs.md names 1.39 where this script does not replace it")

header = f"""# The pull requests of the series for release-{base}

<!-- Written by make port from releases/master/prs.md (hack/internal/port-prs.py): edit that file. -->

The series in `patches/` is the series for master on {version}, for a fork
at release-{base}, with the gate at {base}: the same pull requests as
[master's](../master/prs.md), one SIG each, in the same order, with the same
commits, titles and texts; the merge plan and the related work upstream are
there. `make pr BASE={base}` writes them as branches (`kep-6318/NN-NAME`) into
the tree of this base, with your name, e-mail and GitHub handle in the
commits, and checks that each branch builds and passes the tests of what it
changes on its own, for a fork that takes them one at a time. KEP-6318 is
kubernetes/enhancements#6318, and the amendment each pull request needs is in
this repository's [KEP.md](../../KEP.md#the-kep-amendment).

"""
path = f"{releases}/{base}/prs.md"
if check:
    if open(path).read() != header + body:
        sys.exit(f"releases/{base}/prs.md is not releases/master/prs.md's texts for {version}: "
                 f"run hack/internal/port-prs.py releases {base} (make port BASE={base} does)")
else:
    open(path, "w").write(header + body)
