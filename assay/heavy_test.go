package assay_test

import "os"

// heavy reports whether FAULTLINE_HEAVY=1 asks for the full-size
// campaigns: go test ./... runs a small exact version of each, and the
// nightly workflow's heavy job runs them in full.
func heavy() bool { return os.Getenv("FAULTLINE_HEAVY") == "1" }
