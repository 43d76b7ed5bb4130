package copperfin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/model"
)

// Copperfin returns the paper's worked fixture (the paper, worked example 3):
// order O-731 (tenant T-1, eligible, version 43, £74.00) under policy version
// 12, a refund capability for operator-27 that expires at 120,000 ms, and a
// second order O-732 of the same tenant that a subject swap can reach.
func Copperfin() model.Fixture {
	return model.Fixture{
		Name: "copperfin",
		Subjects: []model.Subject{
			{ID: "O-731", Tenant: "T-1", Status: StatusEligible, Version: 43, Amount: 7400},
			{ID: "O-732", Tenant: "T-1", Status: StatusEligible, Version: 17, Amount: 7400},
		},
		Policies: []model.Policy{{Tenant: "T-1", Version: 12, Allows: true, MaxAmount: 50000}},
		Capabilities: []model.Capability{
			{ID: "CAP-27-731", Actor: "operator-27", Subject: "O-731", Tenant: "T-1", Purpose: "customer_refund", Amount: 7400, Expiry: 120000},
		},
		Tasks: []model.Task{
			{ID: "refund-O-731", Actor: "operator-27", Subject: "O-731", Tenant: "T-1", Purpose: "customer_refund", Amount: 7400, Capability: "CAP-27-731"},
		},
		// the refund world's parameters of the generic invariants: a fraud
		// hold stops a refund, the order record is the authoritative
		// eligibility source, and an order is refunded once whichever task
		// asks
		Holds:          []string{StatusFraudHold},
		Authoritative:  SourceAuthoritative,
		OncePerSubject: true,
	}
}

// Order statuses of the refund world: a refund may be made only while an
// order is eligible; a fraud hold (the status a cross_source_conflict
// fault places) stops it.
const (
	StatusEligible  = "eligible"
	StatusFraudHold = "fraud_hold"
)

// Eligibility sources of the refund world: the order record is
// authoritative; the CRM summary is a secondary source that can disagree
// with it.
const (
	SourceAuthoritative = "order_record"
	SourceSecondary     = "crm_summary"
)

// CopperfinBatch returns the Copperfin fixture with three tasks in one run
// (exploration's several-task workload): the refund of O-731, the refund
// of O-732 (the same tenant, its own capability), and a second refund
// request for O-731 (the same order twice, under the same capability).
//
// The oracle's rule for the repeated order: a refund is one logical action
// per tenant, subject and purpose, whichever task asks for it. The second
// request is not entitled once the ledger holds the first refund, its
// correct terminal is a denial with no effect, and a second ledger effect
// for the order breaks effect_at_most_once.
func CopperfinBatch() model.Fixture {
	f := Copperfin()
	f.Name = "copperfin-batch"
	f.Capabilities = append(f.Capabilities,
		model.Capability{ID: "CAP-27-732", Actor: "operator-27", Subject: "O-732", Tenant: "T-1", Purpose: "customer_refund", Amount: 7400, Expiry: 120000})
	f.Tasks = append(f.Tasks,
		model.Task{ID: "refund-O-732", Actor: "operator-27", Subject: "O-732", Tenant: "T-1", Purpose: "customer_refund", Amount: 7400, Capability: "CAP-27-732"},
		model.Task{ID: "refund-O-731-again", Actor: "operator-27", Subject: "O-731", Tenant: "T-1", Purpose: "customer_refund", Amount: 7400, Capability: "CAP-27-731"})
	return f
}

// CopperfinTenants returns the Copperfin fixture with a second tenant in
// one run (the workload of the correlations that cross workers and
// tenants): the refund of O-731 for tenant T-1, then the refund of O-841
// for tenant T-2 (its own policy, operator and capability).
func CopperfinTenants() model.Fixture {
	f := Copperfin()
	f.Name = "copperfin-tenants"
	f.Subjects = append(f.Subjects, model.Subject{ID: "O-841", Tenant: "T-2", Status: StatusEligible, Version: 8, Amount: 5200})
	f.Policies = append(f.Policies, model.Policy{Tenant: "T-2", Version: 4, Allows: true, MaxAmount: 50000})
	f.Capabilities = append(f.Capabilities,
		model.Capability{ID: "CAP-31-841", Actor: "operator-31", Subject: "O-841", Tenant: "T-2", Purpose: "customer_refund", Amount: 5200, Expiry: 120000})
	f.Tasks = append(f.Tasks,
		model.Task{ID: "refund-O-841", Actor: "operator-31", Subject: "O-841", Tenant: "T-2", Purpose: "customer_refund", Amount: 5200, Capability: "CAP-31-841"})
	return f
}

// FleetAgents is the size of the built-in fleet fixture copperfin-fleet:
// the paper's one hundred synchronised agents (thought experiment 4).
const FleetAgents = 100

// CopperfinFleet returns a fleet of n agents (1 to model.MaxWorkers)
// started together by one scheduler, each refunding its own order of
// tenant T-1 under its own capability, against a provider whose capacity
// is one attempt per window for every ten agents (at least one) in
// windows of 100 logical ms, with the default shared retry budget (one
// retry for every five agents). Its name is copperfin-fleet for
// FleetAgents agents, copperfin-fleet-N otherwise. It panics for n out of
// range (programmer misuse).
func CopperfinFleet(n int) model.Fixture {
	if n < 1 || n > model.MaxWorkers {
		panic(fmt.Sprintf("copperfin: CopperfinFleet(%d): a fleet has 1 to %d agents", n, model.MaxWorkers))
	}
	f := Copperfin()
	f.Name = "copperfin-fleet"
	if n != FleetAgents {
		f.Name += "-" + strconv.Itoa(n)
	}
	f.Subjects, f.Capabilities, f.Tasks = make([]model.Subject, 0, n), make([]model.Capability, 0, n), make([]model.Task, 0, n)
	for i := range n {
		order := "O-" + strconv.Itoa(2001+i)
		capID := "CAP-27-" + strconv.Itoa(2001+i)
		f.Subjects = append(f.Subjects, model.Subject{ID: order, Tenant: "T-1", Status: StatusEligible, Version: 1, Amount: 7400})
		f.Capabilities = append(f.Capabilities, model.Capability{ID: capID, Actor: "operator-27", Subject: order, Tenant: "T-1",
			Purpose: "customer_refund", Amount: 7400, Expiry: 120000})
		f.Tasks = append(f.Tasks, model.Task{ID: "refund-" + order, Actor: "operator-27", Subject: order, Tenant: "T-1",
			Purpose: "customer_refund", Amount: 7400, Capability: capID})
	}
	f.Fleet = &model.Fleet{Capacity: max(1, n/10)}
	return f
}

// policyReplicaMaxAge is the max_policy_age, in logical milliseconds,
// the copperfin-policy-replica fixture states: ten times MaxPolicyAge.
const policyReplicaMaxAge model.Millis = 10 * MaxPolicyAge

// CopperfinPolicyReplica returns the Copperfin fixture whose tenant
// policy is served by a replica that may fail to fetch: it states a
// max_policy_age of policyReplicaMaxAge, so every run checks
// policy_fresh and the default search draws policy_fetch_failed. Its
// name is copperfin-policy-replica.
func CopperfinPolicyReplica() model.Fixture {
	f := Copperfin()
	f.Name = "copperfin-policy-replica"
	f.MaxPolicyAge = policyReplicaMaxAge
	return f
}

// FixtureNames lists the built-in fixtures a schedule's config may name
// (a fleet of another size, copperfin-fleet-N, and
// copperfin-policy-replica too).
var FixtureNames = []string{"copperfin", "copperfin-batch", "copperfin-tenants", "copperfin-fleet"}

// FixtureNamed returns the built-in fixture named name ("" is copperfin),
// or an error naming it and the valid names.
func FixtureNamed(name string) (model.Fixture, error) {
	switch name {
	case "", "copperfin":
		return Copperfin(), nil
	case "copperfin-batch":
		return CopperfinBatch(), nil
	case "copperfin-tenants":
		return CopperfinTenants(), nil
	case "copperfin-fleet":
		return CopperfinFleet(FleetAgents), nil
	case "copperfin-policy-replica":
		return CopperfinPolicyReplica(), nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "copperfin-fleet-")); err == nil && strings.HasPrefix(name, "copperfin-fleet-") &&
		n >= 1 && n <= model.MaxWorkers && strconv.Itoa(n) == name[len("copperfin-fleet-"):] {
		f := CopperfinFleet(n)
		f.Name = name // copperfin-fleet-100 too, so a schedule naming it runs
		return f, nil
	}
	return model.Fixture{}, fmt.Errorf("unknown fixture %q (valid: copperfin, copperfin-batch, copperfin-tenants, copperfin-fleet, copperfin-fleet-N for N from 1 to %d, copperfin-policy-replica)", name, model.MaxWorkers)
}
