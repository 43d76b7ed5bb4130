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

// KeyOf returns the key of a fault kind's typed spec.
func KeyOf(s model.FaultSpec) Key {
	return Key{Domain: s.Domain, Boundary: s.Boundary, Phase: s.Phase, Correlation: s.Correlation, Oracle: s.Oracle}
}

// String returns the key's text form: domain/boundary/phase/correlation/oracle.
func (k Key) String() string {
	return string(k.Domain) + "/" + string(k.Boundary) + "/" + string(k.Phase) + "/" + string(k.Correlation) + "/" + string(k.Oracle)
}

// Value returns the key's value in dimension d.
func (k Key) Value(d Dimension) string {
	switch d {
	case DimDomain:
		return string(k.Domain)
	case DimBoundary:
		return string(k.Boundary)
	case DimPhase:
		return string(k.Phase)
	case DimCorrelation:
		return string(k.Correlation)
	case DimOracle:
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
	if len(parts) != len(Dimensions) {
		return Key{}, fmt.Errorf("coverage key %q: want 5 values domain/boundary/phase/correlation/oracle, got %d", s, len(parts))
	}
	for i, d := range Dimensions {
		if d.index(parts[i]) < 0 {
			return Key{}, fmt.Errorf("coverage key %q: %w", s, d.unknown(parts[i]))
		}
	}
	return Key{model.Domain(parts[0]), model.Boundary(parts[1]), model.Phase(parts[2]),
		model.Correlation(parts[3]), model.OracleName(parts[4])}, nil
}

// Dimension names one coordinate of a Key.
type Dimension int

// The five dimensions, in key order.
const (
	DimDomain Dimension = iota
	DimBoundary
	DimPhase
	DimCorrelation
	DimOracle
)

// Dimensions lists the dimensions in key order.
var Dimensions = []Dimension{DimDomain, DimBoundary, DimPhase, DimCorrelation, DimOracle}

var dimNames = [...]string{"domain", "boundary", "phase", "correlation", "oracle"}

// String returns the dimension's name: domain, boundary, phase, correlation
// or oracle.
func (d Dimension) String() string { return dimNames[d] }

// MarshalText returns the dimension's name.
func (d Dimension) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// plural is the dimension's plural name.
func (d Dimension) plural() string {
	if d == DimBoundary {
		return "boundaries"
	}
	return dimNames[d] + "s"
}

// Values returns every value of the dimension, in the model's order
// (model.Domains, model.AllBoundaries, model.AllPhases,
// model.AllCorrelations, model.AllOracles).
func (d Dimension) Values() []string {
	switch d {
	case DimDomain:
		return strs(model.Domains)
	case DimBoundary:
		return strs(model.AllBoundaries)
	case DimPhase:
		return strs(model.AllPhases)
	case DimCorrelation:
		return strs(model.AllCorrelations)
	case DimOracle:
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
	for _, d := range Dimensions {
		m[d] = map[string]int{}
		for i, v := range d.Values() {
			m[d][v] = i
		}
	}
	return m
}()

// index returns v's position in d's values, or -1.
func (d Dimension) index(v string) int {
	if i, ok := dimIndex[d][v]; ok {
		return i
	}
	return -1
}

func (d Dimension) unknown(v string) error {
	return fmt.Errorf("unknown %s %q (valid: %s)", d, v, strings.Join(d.Values(), ", "))
}

// keyLess orders keys by their dimension values' positions in the model's
// lists (domain first), the order every report uses.
func keyLess(a, b Key) bool {
	for _, d := range Dimensions {
		ia, ib := d.index(a.Value(d)), d.index(b.Value(d))
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
