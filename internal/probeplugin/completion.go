package probeplugin

import (
	"strings"

	"github.com/spf13/cobra"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/completion"
)

// Shell completion works as kubectl expects of a plugin: kubectl completes
// "kubectl probe ..." by running kubectl_complete-probe (installed next to
// kubectl-probe), which runs "kubectl-probe __complete ...", cobra's
// completion command.

// targetCompletion completes TARGETs: the names of Pods, and TYPE/NAME of
// the workloads kubectl probe works on.
func targetCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if kind, name, ok := strings.Cut(toComplete, "/"); ok {
			var comps []string
			for _, n := range completion.CompGetResource(f, kind, name) {
				comps = append(comps, kind+"/"+n)
			}
			return comps, cobra.ShellCompDirectiveNoFileComp
		}
		comps := completion.CompGetResource(f, "pod", toComplete)
		for _, arg := range workloadArgs() {
			if kind := strings.TrimSuffix(arg, "NAME"); strings.HasPrefix(kind, toComplete) {
				comps = append(comps, kind)
			}
		}
		return comps, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// registerCompletions completes the flags that name objects: -c with the
// containers of the Pod named first, -n, --context, --cluster and --user.
func registerCompletions(f cmdutil.Factory, root *cobra.Command) {
	completion.SetFactoryForCompletion(f)
	cmdutil.CheckErr(root.RegisterFlagCompletionFunc("namespace", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completion.CompGetResource(f, "namespace", toComplete), cobra.ShellCompDirectiveNoFileComp
	}))
	cmdutil.CheckErr(root.RegisterFlagCompletionFunc("context", completion.ContextCompletionFunc))
	cmdutil.CheckErr(root.RegisterFlagCompletionFunc("cluster", completion.ClusterCompletionFunc))
	cmdutil.CheckErr(root.RegisterFlagCompletionFunc("user", completion.UserCompletionFunc))
	for _, cmd := range root.Commands() {
		if cmd.Flags().Lookup("container") == nil {
			continue
		}
		cmdutil.CheckErr(cmd.RegisterFlagCompletionFunc("container", func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 || strings.Contains(args[0], "/") && !strings.HasPrefix(args[0], "pod/") {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completion.CompGetContainers(f, strings.TrimPrefix(args[0], "pod/"), toComplete), cobra.ShellCompDirectiveNoFileComp
		}))
	}
}
