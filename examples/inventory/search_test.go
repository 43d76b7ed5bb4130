package inventory_test

import (
	"github.com/faultline/faultline/model"
)

// candidates returns every single fault of the catalogue whose event the
// fault-free run crosses, at ordinals 1 to two more than the number of
// times it crosses it (a retry crosses an event again), in catalogue
// order, then by ordinal.
func candidates(h *model.Harness, factory model.Factory) ([]model.FaultEntry, error) {
	clean := &model.Schedule{Version: model.ScheduleVersion, Config: model.Config{}, Faults: []model.FaultEntry{}}
	res, err := h.Run(factory, clean)
	if err != nil {
		return nil, err
	}
	crossed := map[model.EventName]int{}
	for _, e := range res.Timeline.Events() {
		crossed[e.Event]++
	}
	var out []model.FaultEntry
	for _, spec := range model.Catalogue() {
		n := crossed[spec.Event]
		if n == 0 {
			continue
		}
		for o := 1; o <= n+2; o++ {
			out = append(out, model.FaultEntry{Event: spec.Event, Ordinal: o, Kind: spec.Kind})
		}
	}
	return out, nil
}

// search runs every schedule of one fault, then every ordered pair of two
// different faults, and returns the schedules whose run broke an
// invariant, fewest faults first, and the number of runs. The first
// failing schedule is a minimal one.
func search(h *model.Harness, factory model.Factory, maxFaults int) (failing []*model.Schedule, runs int, err error) {
	cands, err := candidates(h, factory)
	if err != nil {
		return nil, 0, err
	}
	try := func(faults ...model.FaultEntry) error {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "inventory-search", Config: model.Config{}, Faults: faults}
		res, err := h.Run(factory, s)
		if err != nil {
			return err
		}
		runs++
		if !res.Held() {
			failing = append(failing, s)
		}
		return nil
	}
	for _, a := range cands {
		if err := try(a); err != nil {
			return nil, runs, err
		}
	}
	if len(failing) > 0 || maxFaults < 2 {
		return failing, runs, nil
	}
	for _, a := range cands {
		for _, b := range cands {
			if a == b {
				continue
			}
			if err := try(a, b); err != nil {
				return nil, runs, err
			}
		}
	}
	return failing, runs, nil
}
