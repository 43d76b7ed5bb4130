package main

import (
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// overrideControls returns cfg with only its control selection replaced:
// the profile label when the flags named a profile alone, else the
// explicit control set cs. The fixture, mutant, retry budget, deadline and
// join policy of the file stay as they are.
func overrideControls(cfg model.Config, cs copperfin.Controls, label string) model.Config {
	st := copperfin.Settings{Mutant: copperfin.MutantOf(cfg)}
	if label == "custom" {
		st.Controls, st.HasControls = cs, true
	} else {
		st.Profile = copperfin.Profile(label)
	}
	cfg.System = st.JSON()
	return cfg
}
