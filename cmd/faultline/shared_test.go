package main

import (
	"sync"
	"testing"
)

var (
	auditOnce                sync.Once
	auditCode                int
	auditStdout, auditStderr string
)

// runAudit runs "faultline audit" once for the package's tests and returns
// its exit code and output: the audit is a pure function of the build, so
// every test that reads the plain audit reads the same run.
func runAudit(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	auditOnce.Do(func() { auditCode, auditStdout, auditStderr = runCLI(t, "audit") })
	return auditCode, auditStdout, auditStderr
}
