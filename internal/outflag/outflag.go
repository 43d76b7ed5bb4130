// Package outflag is the one machine-output flag of every faultline
// command: --format FORMAT, text by default, json and whatever else the
// command writes (markdown, html), with --json kept as an alias of
// --format json. A command's --format json output is what its --json
// printed, byte for byte: both select the same writer.
//
// Asked reports whether a command line asked for JSON, so that the
// program can print an error as one JSON object on stdout.
package outflag

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Flag is one command's --format and --json.
type Flag struct {
	format  string
	json    bool
	formats []string
}

// Add registers --format (one of formats, the first the default) and
// --json on c, with the completion of --format's values; what says what
// the output is ("the report").
func Add(c *cobra.Command, what string, formats ...string) *Flag {
	f := &Flag{formats: formats}
	list := strings.Join(formats[:len(formats)-1], ", ") + " or " + formats[len(formats)-1]
	c.Flags().StringVar(&f.format, "format", formats[0], "print "+what+" as "+list+
		" (json: one JSON object; an error then prints as {\"version\":1,\"error\":...,\"exit\":...} on stdout)")
	c.Flags().BoolVar(&f.json, "json", false, "the same as --format json")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return f
}

// Format returns the format the command line chose, or an error naming
// the flag: a format the command does not write, or --json with another
// --format.
func (f *Flag) Format(c *cobra.Command) (string, error) {
	if f.json {
		if c.Flags().Changed("format") && f.format != "json" {
			return "", fmt.Errorf("--json is --format json: give one of them, not --json with --format %s", f.format)
		}
		return "json", nil
	}
	for _, v := range f.formats {
		if v == f.format {
			return v, nil
		}
	}
	return "", fmt.Errorf("--format: unknown format %q (valid: %s)", f.format, strings.Join(f.formats, ", "))
}

// JSON reports whether the chosen format is json.
func (f *Flag) JSON(c *cobra.Command) bool {
	v, err := f.Format(c)
	return err == nil && v == "json"
}

// Asked reports whether the command line asked for JSON: c's --json set
// or its --format json, or, when the flags did not parse, args holding
// --json (or --json=true) or --format json (or --format=json) before a
// "--", the last value of each flag winning, as pflag's does
// ("--format json --format text" asks for text).
func Asked(c *cobra.Command, args []string) bool {
	if c != nil {
		if f := c.Flags().Lookup("json"); f != nil && f.Changed && f.Value.String() == "true" {
			return true
		}
	}
	format, asJSON := "", false
scan:
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			break scan
		case a == "--json" || a == "--json=true":
			asJSON = true
		case strings.HasPrefix(a, "--json="):
			asJSON = false
		case strings.HasPrefix(a, "--format="):
			format = strings.TrimPrefix(a, "--format=")
		case a == "--format" && i+1 < len(args):
			format = args[i+1]
			i++
		}
	}
	if format != "" || asJSON {
		return asJSON || format == "json"
	}
	if c != nil {
		if f := c.Flags().Lookup("format"); f != nil && f.Changed && f.Value.String() == "json" {
			return true
		}
	}
	return false
}
