package cli

import (
	"github.com/spf13/cobra"

	"github.com/faultline/faultline/internal/complete"
	"github.com/faultline/faultline/model"
)

// completeValues registers, on c and its subcommands, the shell
// completion of every flag of the program's whose values are a closed
// set and that completes nothing yet: --system (the registered systems),
// --fixture (their fixtures), --kinds (the kinds of the catalogue, world
// events, notices and cache and worker kinds) and --domains. The values
// are read when the shell asks, from the systems and the catalogue.
func (p *Program) completeValues(c *cobra.Command) {
	for _, sub := range c.Commands() {
		p.completeValues(sub)
	}
	sets := map[string]func() []string{
		"system":  p.systemNames,
		"fixture": p.fixtureNames,
		"kinds":   kindNames,
		"domains": domainNames,
	}
	for name, values := range sets {
		if c.Flags().Lookup(name) == nil {
			continue
		}
		if _, ok := c.GetFlagCompletionFunc(name); ok {
			continue
		}
		complete.Values(c, name, values)
	}
}

// fixtureNames lists the fixtures of every registered system.
func (p *Program) fixtureNames() []string {
	var out []string
	for _, d := range p.Systems {
		for _, f := range d.Fixtures {
			out = append(out, f.Name)
		}
	}
	return out
}

// kindNames lists every fault kind and world event a schedule may name,
// in the catalogue's order.
func kindNames() []string {
	var out []string
	for _, table := range [][]model.FaultSpec{model.Catalogue(), model.WorldEvents(), model.NoticeKinds(), model.CacheAndWorkerKinds()} {
		for _, s := range table {
			out = append(out, s.Kind)
		}
	}
	return out
}

// domainNames lists the fault domains.
func domainNames() []string {
	out := make([]string, len(model.Domains))
	for i, d := range model.Domains {
		out[i] = string(d)
	}
	return out
}
