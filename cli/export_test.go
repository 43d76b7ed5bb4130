package cli

import (
	"io"
	"runtime/debug"
)

// FakeTerminal makes every command take its error stream for a terminal,
// and render every progress update, until the returned function restores
// them.
func FakeTerminal() (restore func()) {
	old, oldThrottle := isTerminal, progressThrottle
	isTerminal = func(io.Writer) bool { return true }
	progressThrottle = -1
	return func() { isTerminal, progressThrottle = old, oldThrottle }
}

// CollectLess is collectLess, for the tests.
var CollectLess = collectLess

const (
	SummaryLines = summaryLines
	SummaryWidth = summaryWidth
)

// VersionText is Program.versionText, for the tests.
func (p *Program) VersionText(info *debug.BuildInfo, ok bool) string { return p.versionText(info, ok) }

// VersionOf is Program.versionOf, for the tests.
func (p *Program) VersionOf(info *debug.BuildInfo, ok bool) any { return p.versionOf(info, ok) }
