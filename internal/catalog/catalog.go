// Package catalog reads model's fault catalogue the way the assay, its
// tests and the lab group it: the kind names of one domain (Kinds), and
// the kinds a system's path can enact (Enacted, Enacts, CheckEnacted), the
// one rule every door draws, walks, audits and covers by.
package catalog

import "github.com/faultline/faultline/model"

// Kinds returns the kind names of domain d in catalogue order; with paper
// true, only the paper's ten modes.
func Kinds(d model.Domain, paper bool) []string {
	var out []string
	for _, s := range model.Catalogue() {
		if s.Domain == d && (!paper || s.Paper) {
			out = append(out, s.Kind)
		}
	}
	return out
}
