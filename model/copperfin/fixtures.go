package copperfin

import (
	"fmt"

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

// FixtureNames lists the built-in fixtures a schedule's config may name.
var FixtureNames = []string{"copperfin", "copperfin-batch", "copperfin-tenants"}

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
	}
	return model.Fixture{}, fmt.Errorf("unknown fixture %q (valid: copperfin, copperfin-batch, copperfin-tenants)", name)
}
