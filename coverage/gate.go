package coverage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Requirement is one line of a keys file: a key pattern whose values are
// dimension values or "*" (any value). A pattern without "*" requires its
// key; a pattern with "*" requires every reachable key it matches.
type Requirement struct {
	// Line is the line number in the keys file (1-based).
	Line   int
	Values [5]string
}

// String returns the pattern's text form.
func (q Requirement) String() string { return strings.Join(q.Values[:], "/") }

// Matches reports whether k fits the pattern.
func (q Requirement) Matches(k Key) bool {
	for i, d := range dimensions {
		if q.Values[i] != "*" && q.Values[i] != k.value(d) {
			return false
		}
	}
	return true
}

func (q Requirement) exact() bool { return !strings.Contains(q.String(), "*") }

// ParseRequirements reads a keys file: one pattern a line,
// domain/boundary/phase/correlation/oracle with "*" for any value
// ("state/*/*/*/*"); "#" starts a comment; blank lines are ignored. It
// returns an error naming the line for a wrong number of values, an
// unknown value (with the valid ones), or a pattern given twice, and an
// error for a file with no pattern.
func ParseRequirements(data []byte) ([]Requirement, error) {
	var out []Requirement
	seen := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		n := i + 1
		q, err := parsePattern(line)
		if err != nil {
			return nil, fmt.Errorf("keys file line %d: %w", n, err)
		}
		q.Line = n
		if prev, dup := seen[q.String()]; dup {
			return nil, fmt.Errorf("keys file line %d: %s repeats line %d", n, q, prev)
		}
		seen[q.String()] = n
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, errors.New("keys file: no key pattern (one domain/boundary/phase/correlation/oracle a line)")
	}
	return out, nil
}

// parsePattern reads one key pattern, domain/boundary/phase/correlation/
// oracle with "*" for any value; its error names a wrong number of values
// or an unknown value (with the valid ones).
func parsePattern(line string) (Requirement, error) {
	var q Requirement
	parts := strings.Split(line, "/")
	if len(parts) != len(dimensions) {
		return q, fmt.Errorf("%q: want 5 values domain/boundary/phase/correlation/oracle (or *), got %d", line, len(parts))
	}
	for j, d := range dimensions {
		v := strings.TrimSpace(parts[j])
		if v != "*" && d.index(v) < 0 {
			return q, d.unknown(v)
		}
		q.Values[j] = v
	}
	return q, nil
}

// GateOptions select what a gate requires; at least one must be set.
type GateOptions struct {
	// MinRatio, when HasMinRatio, is the least visited/reachable ratio, a
	// rate in [0,1].
	MinRatio    float64
	HasMinRatio bool
	// Require lists key patterns that must be visited.
	Require []Requirement
	// NoViolations fails the gate when a recorded run violated an
	// invariant; by default the gate measures visits only and just counts
	// the violations.
	NoViolations bool
}

// GateResult is a gate's finding.
type GateResult struct {
	Ratio     float64
	Visited   int
	Reachable int
	// Applicable is the systems' universe (Summary.Applicable): Reachable
	// less the keys left out with why; Ratio is Visited / Applicable.
	Applicable  int
	MinRatio    float64
	HasMinRatio bool
	// Required counts the keys the requirements name (a key named by
	// several patterns counts once).
	Required int
	// Missing lists each required key not visited, with its reason, in
	// requirement order, and each pattern that matches no reachable key.
	Missing []Missing
	// Unvisited lists, when the ratio is not met, each key of the
	// systems' universe no run visited, with its status and why (Line 0,
	// Requirement "min_ratio").
	Unvisited []Missing
	// NotApplicable counts the reachable keys left out as declared not
	// applicable (Summary.NotApplicable).
	NotApplicable int
	// Violations counts the recorded violations of an invariant (a run
	// counts once per invariant it broke, unattributed ones included),
	// under ViolatedKeys keys; NoViolations fails the gate on any.
	Violations, ViolatedKeys int
	NoViolations             bool
	// Contradicted lists the not-applicable declarations the file's own
	// runs refute (Report.Contradicted); any fails the gate, since the
	// ratio's universe rests on them.
	Contradicted []Contradiction
}

// Missing is one unmet requirement.
type Missing struct {
	Line        int    `json:"line"`
	Requirement string `json:"requirement"`
	// Key is the unvisited key ("" when the pattern matched no reachable
	// key).
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// Passed reports whether the ratio (when set) is met, no required key
// is missing, no declaration is contradicted and, under NoViolations, no
// run violated an invariant.
func (g *GateResult) Passed() bool {
	return g.RatioMet() && len(g.Missing) == 0 && len(g.Contradicted) == 0 && (!g.NoViolations || g.Violations == 0)
}

// RatioMet reports whether the minimum ratio, when set, is met.
func (g *GateResult) RatioMet() bool { return !g.HasMinRatio || g.Ratio >= g.MinRatio }

// Gate checks d against opts over universe u. A required key that is
// unreachable is missing, with the catalogue's reason (the gate fails
// closed). It returns an error, for bad input, when neither a ratio nor a
// requirement is given or the ratio is not a number in [0,1].
func Gate(u *Universe, d *Data, opts GateOptions) (*GateResult, error) {
	if !opts.HasMinRatio && len(opts.Require) == 0 {
		return nil, errors.New("coverage gate: give a minimum ratio, required keys, or both")
	}
	if opts.HasMinRatio && (math.IsNaN(opts.MinRatio) || opts.MinRatio < 0 || opts.MinRatio > 1) {
		return nil, fmt.Errorf("coverage gate: minimum ratio %v is not in [0,1]", opts.MinRatio)
	}
	if opts.MinRatio == 0 {
		opts.MinRatio = 0 // -0 reads as 0 in the result and the text
	}
	r := NewReport(u, d, ReportOptions{})
	g := &GateResult{Ratio: r.Summary.Ratio, Visited: r.Summary.Visited, Reachable: r.Summary.Reachable, Applicable: r.Summary.Applicable,
		MinRatio: opts.MinRatio, HasMinRatio: opts.HasMinRatio, NotApplicable: r.Summary.NotApplicable, ViolatedKeys: r.Summary.Violated,
		NoViolations: opts.NoViolations, Contradicted: r.Contradicted}
	for _, e := range d.Keys {
		for _, c := range e.Counterexamples {
			g.Violations += c.Count
		}
	}
	for _, c := range d.Unattributed {
		g.Violations += c.Count
	}
	if !g.RatioMet() {
		for _, k := range r.Unvisited {
			g.Unvisited = append(g.Unvisited, Missing{Requirement: "min_ratio", Key: k.Key, Reason: k.Status + ": " + k.Reason})
		}
	}
	rows := map[string]KeyRow{}
	for _, k := range r.Keys {
		rows[k.Key] = k
	}
	counted := map[string]bool{}
	for _, q := range opts.Require {
		if q.exact() {
			k, _ := ParseKey(q.String())
			if !counted[k.String()] {
				counted[k.String()] = true
				g.Required++
			}
			if !u.isReachable(k) {
				g.Missing = append(g.Missing, Missing{q.Line, q.String(), k.String(), "unreachable: " + u.reason(k)})
			} else if row := rows[k.String()]; row.Visits == 0 {
				g.Missing = append(g.Missing, Missing{q.Line, q.String(), k.String(), row.Status + ": " + row.Reason})
			}
			continue
		}
		matched := false
		for _, k := range u.reachable {
			if !q.Matches(k) {
				continue
			}
			matched = true
			if !counted[k.String()] {
				counted[k.String()] = true
				g.Required++
			}
			if row := rows[k.String()]; row.Visits == 0 {
				g.Missing = append(g.Missing, Missing{q.Line, q.String(), k.String(), row.Status + ": " + row.Reason})
			}
		}
		if !matched {
			g.Missing = append(g.Missing, Missing{Line: q.Line, Requirement: q.String(), Reason: "no reachable key matches this pattern"})
		}
	}
	return g, nil
}

// WriteText writes the gate's finding: a verdict line, the ratio against
// its minimum, the number of required keys, of those unvisited and of the
// patterns that match no reachable key, and every missing required key
// with its reason.
func (g *GateResult) WriteText(w io.Writer) error {
	var b bytes.Buffer
	verdict := "passed"
	if !g.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "coverage gate: %s\n", verdict)
	if g.Applicable != g.Reachable {
		fmt.Fprintf(&b, "  ratio %.4f (%d of %d keys the systems can reach visited; %d reachable by the catalogue, the rest left out with why in the report)", g.Ratio, g.Visited, g.Applicable, g.Reachable)
	} else {
		fmt.Fprintf(&b, "  ratio %.4f (%d of %d reachable keys visited)", g.Ratio, g.Visited, g.Reachable)
	}
	if g.HasMinRatio {
		met := "met"
		if !g.RatioMet() {
			met = "NOT MET"
		}
		fmt.Fprintf(&b, ", minimum %.4f: %s", g.MinRatio, met)
	}
	fmt.Fprintln(&b)
	if g.NotApplicable > 0 {
		fmt.Fprintf(&b, "  not applicable: %d of the %d reachable keys, left out of the ratio because the systems declare them (model.Definition.NotApplicable, NotApplicableKeys)\n", g.NotApplicable, g.Reachable)
	}
	if len(g.Unvisited) > 0 {
		fmt.Fprintf(&b, "  unvisited keys of the universe: %d\n", len(g.Unvisited))
		for _, m := range g.Unvisited {
			fmt.Fprintf(&b, "  unvisited %s: %s\n", m.Key, m.Reason)
		}
	}
	if len(g.Contradicted) > 0 {
		fmt.Fprintf(&b, "  not-applicable declarations the recorded runs contradict: %d (the ratio's universe rests on them: fix the declaration, delete the file and record again)\n", len(g.Contradicted))
		for _, c := range g.Contradicted {
			fmt.Fprintf(&b, "  %s declares %s, yet %s\n", c.System, c.Declaration, c.Evidence)
		}
	}
	if g.Violations > 0 || g.NoViolations {
		fmt.Fprintf(&b, "  invariants: %s of an invariant recorded under %s (a run counts once per invariant it broke; the counterexamples are in the report)", plural(g.Violations, "violation"), plural(g.ViolatedKeys, "key"))
		switch {
		case g.NoViolations && g.Violations > 0:
			b.WriteString(", --no-violations: NOT MET")
		case g.NoViolations:
			b.WriteString(", --no-violations: met")
		default:
			b.WriteString("; the gate measures visits, not verdicts (--no-violations fails it on any)")
		}
		fmt.Fprintln(&b)
	}
	if g.Required > 0 || len(g.Missing) > 0 {
		keys, patterns := 0, 0
		for _, m := range g.Missing {
			if m.Key == "" {
				patterns++
			} else {
				keys++
			}
		}
		fmt.Fprintf(&b, "  required keys: %d, unvisited: %d", g.Required, keys)
		if patterns > 0 {
			fmt.Fprintf(&b, "; patterns matching no reachable key: %d", patterns)
		}
		fmt.Fprintln(&b)
	}
	for _, m := range g.Missing {
		if m.Key == "" {
			fmt.Fprintf(&b, "  line %d %s: %s\n", m.Line, m.Requirement, m.Reason)
			continue
		}
		fmt.Fprintf(&b, "  line %d %s: unvisited %s: %s\n", m.Line, m.Requirement, m.Key, m.Reason)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// plural writes "1 key" or "N keys".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
