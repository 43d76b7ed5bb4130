// Package ident holds the one rule for the names faultline writes into
// files and reports: a system's, an invariant's, a configuration's and an
// event's parts.
package ident

import (
	"errors"
	"fmt"
)

// Max is the longest name, in bytes.
const Max = 64

// Check returns nil when s is 1 to Max bytes of lower-case ASCII letters,
// digits and underscores, starting with a letter ("charged_once"), and an
// error naming the rule it breaks otherwise (the error does not quote s).
func Check(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case len(s) > Max:
		return fmt.Errorf("%d bytes, longer than %d", len(s), Max)
	case s[0] < 'a' || s[0] > 'z':
		return errors.New("must start with a lower-case letter a-z")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return fmt.Errorf("byte %d (%q) is not a lower-case letter, digit or underscore", i, c)
		}
	}
	return nil
}

// Quote returns s quoted for an error, cut to its first Max bytes (with
// "...") when longer, so a long name does not flood the message.
func Quote(s string) string {
	if len(s) > Max {
		return fmt.Sprintf("%q...", s[:Max])
	}
	return fmt.Sprintf("%q", s)
}
