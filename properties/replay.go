package properties

import "path/filepath"

// FailFolder returns the folder, relative to the test's package
// directory, in which Check keeps the counterexamples of the test named
// test by default and replays them first: testdata/faultline/NAME/, NAME
// the test's name made safe for a folder. A tool that finds a counterexample of the same system elsewhere
// (a fuzz target) can store its schedule file there, so the test's next
// run replays it.
func FailFolder(test string) string {
	return filepath.Join(filepath.FromSlash(failDir), safeName(test))
}

// ReplayCommand returns the command that replays the schedule file at
// path through the test named test, a test that calls Check on the
// system: FAULTLINE_REPLAY=FILE go test -run '^TEST$' PKG, to run from the
// module root, as Check prints it. PKG is the working directory (the
// package directory, under go test) relative to the module root, and FILE
// is path relative to the package directory when path lies under it.
// Check runs the file's faults under the file's own config and fixture
// (the fail folder's stored files, by contrast, rerun under the test's).
func ReplayCommand(test, path string) string {
	return newFailFiles(test, "").command(path)
}
