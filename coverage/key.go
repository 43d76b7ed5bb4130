package coverage

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Key is the paper's coverage key K = (domain, boundary, phase,
// correlation, oracle) (the paper, "Coverage that cannot be gamed"): two runs
// with different keys are different experiments even when they raise the
// same software exception. Its text form is the five values joined by "/",
// in that order, e.g. "tool/effect/after_commit/isolated/ledger_readback";
// ParseKey reads what String writes. Key is comparable and usable as a map
// key, and marshals to JSON as its text form.
type Key struct {
	Domain      model.Domain
	Boundary    model.Boundary
	Phase       model.Phase
	Correlation model.Correlation
	Oracle      model.OracleName
}

// keyOf returns the key of a fault kind's typed spec.
func keyOf(s model.FaultSpec) Key {
	return Key{Domain: s.Domain, Boundary: s.Boundary, Phase: s.Phase, Correlation: s.Correlation, Oracle: s.Oracle}
}

// String returns the key's text form: domain/boundary/phase/correlation/oracle.
func (k Key) String() string {
	return string(k.Domain) + "/" + string(k.Boundary) + "/" + string(k.Phase) + "/" + string(k.Correlation) + "/" + string(k.Oracle)
}

// Value returns the key's value in dimension d.
func (k Key) value(d dimension) string {
	switch d {
	case dimDomain:
		return string(k.Domain)
	case dimBoundary:
		return string(k.Boundary)
	case dimPhase:
		return string(k.Phase)
	case dimCorrelation:
		return string(k.Correlation)
	case dimOracle:
		return string(k.Oracle)
	}
	panic(fmt.Sprintf("coverage: unknown dimension %d", int(d)))
}

// MarshalText returns String's form.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses the text form strictly (see ParseKey).
func (k *Key) UnmarshalText(b []byte) error {
	x, err := ParseKey(string(b))
	if err != nil {
		return err
	}
	*k = x
	return nil
}

// ParseKey parses "domain/boundary/phase/correlation/oracle". It returns an
// error naming the problem: the wrong number of parts, or the dimension
// whose value is unknown, with the valid values.
func ParseKey(s string) (Key, error) {
	parts := strings.Split(s, "/")
	if len(parts) != len(dimensions) {
		return Key{}, fmt.Errorf("coverage key %q: want 5 values domain/boundary/phase/correlation/oracle, got %d", s, len(parts))
	}
	for i, d := range dimensions {
		if d.index(parts[i]) < 0 {
			return Key{}, fmt.Errorf("coverage key %q: %w", s, d.unknown(parts[i]))
		}
	}
	return Key{model.Domain(parts[0]), model.Boundary(parts[1]), model.Phase(parts[2]),
		model.Correlation(parts[3]), model.OracleName(parts[4])}, nil
}

// dimension names one coordinate of a Key.
type dimension int

// The five dimensions, in key order.
const (
	dimDomain dimension = iota
	dimBoundary
	dimPhase
	dimCorrelation
	dimOracle
)

// dimensions lists the dimensions in key order.
var dimensions = []dimension{dimDomain, dimBoundary, dimPhase, dimCorrelation, dimOracle}

var dimNames = [...]string{"domain", "boundary", "phase", "correlation", "oracle"}

// String returns the dimension's name: domain, boundary, phase, correlation
// or oracle.
func (d dimension) String() string { return dimNames[d] }

// MarshalText returns the dimension's name.
func (d dimension) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// plural is the dimension's plural name.
func (d dimension) plural() string {
	if d == dimBoundary {
		return "boundaries"
	}
	return dimNames[d] + "s"
}

// Values returns every value of the dimension, in the model's order
// (model.Domains, model.AllBoundaries, model.AllPhases,
// model.AllCorrelations, model.AllOracles).
func (d dimension) Values() []string {
	switch d {
	case dimDomain:
		return strs(model.Domains)
	case dimBoundary:
		return strs(model.AllBoundaries)
	case dimPhase:
		return strs(model.AllPhases)
	case dimCorrelation:
		return strs(model.AllCorrelations)
	case dimOracle:
		return strs(model.AllOracles)
	}
	panic(fmt.Sprintf("coverage: unknown dimension %d", int(d)))
}

// strs converts a list of string-kinded values to strings.
func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// dimIndex maps each dimension's values to their positions.
var dimIndex = func() (m [5]map[string]int) {
	for _, d := range dimensions {
		m[d] = map[string]int{}
		for i, v := range d.Values() {
			m[d][v] = i
		}
	}
	return m
}()

// index returns v's position in d's values, or -1.
func (d dimension) index(v string) int {
	if i, ok := dimIndex[d][v]; ok {
		return i
	}
	return -1
}

func (d dimension) unknown(v string) error {
	return fmt.Errorf("unknown %s %q (valid: %s)", d, v, strings.Join(d.Values(), ", "))
}

// keyLess orders keys by their dimension values' positions in the model's
// lists (domain first), the order every report uses.
func keyLess(a, b Key) bool {
	for _, d := range dimensions {
		ia, ib := d.index(a.value(d)), d.index(b.value(d))
		if ia != ib {
			return ia < ib
		}
	}
	return false
}

// keyWith returns a key from values in dimension order.
func keyWith(v [5]string) Key {
	return Key{model.Domain(v[0]), model.Boundary(v[1]), model.Phase(v[2]), model.Correlation(v[3]), model.OracleName(v[4])}
}
