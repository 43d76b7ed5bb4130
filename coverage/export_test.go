package coverage

import "io"

// SetStderr redirects Main's error output and returns the restore func.
func SetStderr(w io.Writer) func() {
	old := stderr
	stderr = w
	return func() { stderr = old }
}
