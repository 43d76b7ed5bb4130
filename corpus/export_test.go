package corpus

// For the tests: the limit on a list's entries, the two counterexample
// formats' probes, the record's mapping and a schedule_decode input's bytes.
const MaxEntries = maxEntries

var (
	IsFile     = func(data []byte) bool { return topLevel(data) == "counterexample" }
	IsRecord   = isRecord
	FromRecord = fromRecord
)

// ParseRecord decodes an exploration's record of before.
func ParseRecord(data []byte) (any, error) { return parseRecord(data) }

// RawInput returns the bytes c.Input quotes.
func RawInput(c *Counterexample) ([]byte, error) { return c.rawInput() }
