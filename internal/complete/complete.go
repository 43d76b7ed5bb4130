// Package complete registers the shell completion of a flag whose values
// are a closed set (a profile, a fixture, fault kinds): the values come
// from the registered systems and the catalogue at completion time, never
// from a list kept beside them. A list flag (--kinds a,b) completes its
// last element after those already typed, leaving out the ones given.
package complete

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Values completes flag's values on c from values. A flag c does not have
// is a programming error: it panics.
func Values(c *cobra.Command, flag string, values func() []string) {
	f := c.Flags().Lookup(flag)
	if f == nil {
		panic("complete: " + c.Name() + " has no flag --" + flag)
	}
	_, list := f.Value.(pflag.SliceValue)
	d := cobra.ShellCompDirectiveNoFileComp
	if list {
		d |= cobra.ShellCompDirectiveNoSpace // another value may follow a comma
	}
	err := c.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return Candidates(values(), toComplete, list), d
	})
	if err != nil {
		panic("complete: " + err.Error())
	}
}

// Candidates returns the values that complete toComplete: for a list, the
// elements typed before the last comma followed by each value not among
// them; otherwise each value with toComplete as its prefix.
func Candidates(values []string, toComplete string, list bool) []string {
	prefix, last := "", toComplete
	var given []string
	if list {
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			prefix, last = toComplete[:i+1], toComplete[i+1:]
			given = strings.Split(toComplete[:i], ",")
		}
	}
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, last) && !slices.Contains(given, v) && !slices.Contains(out, prefix+v) {
			out = append(out, prefix+v)
		}
	}
	return out
}
