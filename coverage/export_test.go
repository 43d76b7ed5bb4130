package coverage

import "github.com/faultline/faultline/model"

// The tests of package coverage_test reach these unexported names through
// the exported ones below.

const DimCorrelation = dimCorrelation

type (
	Cell          = cell
	MarginalValue = marginalValue
	SystemRecord  = systemRecord
)

var (
	ScheduleLess = scheduleLess
	NewUniverse  = newUniverse
)

func (u *Universe) Gaps() []gap            { return u.gapList() }
func (u *Universe) IsReachable(k Key) bool { return u.isReachable(k) }
func (u *Universe) Keys() []Key            { return u.keys() }
func (u *Universe) KindKeyOf(kind string, c model.Correlation) (Key, bool) {
	return u.kindKeyOf(kind, c)
}
func (u *Universe) Reason(k Key) string { return u.reason(k) }
func (u *Universe) Size() int           { return u.total() }
