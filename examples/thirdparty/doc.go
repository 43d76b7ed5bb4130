// Package thirdparty is the module where faultline is tried on real
// third-party clients (payment, LLM and job-queue SDKs) left unmodified. It
// is a module of its own so that faultline's own go.mod requires none of
// them; .ci/run tests it with go test ./... from this folder.
//
// Each client's example is a package under this folder; see docs/production.md.
package thirdparty
