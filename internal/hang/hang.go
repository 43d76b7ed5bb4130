// Package hang is the error of a run of production code that never
// ended, shared by the harness (model), which names a run that did not
// return after its worker crashed, and internal/bubble, which names a
// run whose testing/synctest bubble deadlocked.
package hang

import "fmt"

// Blocked is a run that never ended. Msg is synctest's own message when
// the bubble deadlocked; Cause, when set, is the harness's account of a
// run that went on after its context was cancelled.
type Blocked struct {
	Msg   string
	Cause string
}

// Error says the run never ended, and why.
func (b *Blocked) Error() string {
	if b.Cause != "" {
		return "the system's run never ended: " + b.Cause
	}
	return fmt.Sprintf("the system's run never ended: System.Run blocked on something no crossing and no timer releases (the bubble ended in %q)", b.Msg)
}
