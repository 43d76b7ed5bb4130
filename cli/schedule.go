package cli

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// scheduleCmd is "schedule", whose one subcommand, import, converts the
// harness practice's portable schedule into a versioned one.
func (p *Program) scheduleCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "schedule",
		Short: "Convert schedule files written in other shapes",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return BadInput("schedule: give a subcommand (import)")
		},
	}
	c.AddCommand(p.scheduleImportCmd())
	return c
}

func (p *Program) scheduleImportCmd() *cobra.Command {
	var so systemOptions
	var harness string
	var tools, expect []string
	c := &cobra.Command{
		Use:   "import FILE",
		Short: "Convert the harness practice's example schedule into a versioned schedule",
		Long: `Convert a schedule in the harness practice's portable shape ({"seed": ...,
"faults": [{"event", "ordinal", "kind", "tool", "branch"}]}, with no version
and no config) into a version-2 schedule file of the registered system, printed
in canonical form, by the table of docs/formats.md ("The harness practice's
schedules"): tool.call is tool.commit, timeout is tool_timeout, restart is
worker_restart at checkpoint.write and the world event worker_crash at any
other event, and a partial_failure of a branch at the n-th branch.join is a
branch_failure of that branch at the branch.run of that fan-out in the
system's fault-free run under the config. Names faultline already uses pass
through. The file it prints replays with "replay".

--harness JSON is the config's harness part (fixture, retry_budget,
deadline_ms, join, ...; default {}), --config JSON its system part (default
{}), --tool FROM=TO renames a tool of the file to one of the system's,
--expect-terminal STATE,... declares each task's expected terminal state
(completed, failed, timed_out; the practice freezes them before a run): the
file is then version 3.

Exit codes: 0 converted; 2 bad input (a missing or malformed file, an unknown
field, event or kind, all of them named, a config that does not apply,
production code: a Definition with a Clock, which runs only in a test); 4 an
I/O error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			data, err := fileio.ReadFile(args[0], fileio.ScheduleLimit)
			if err != nil {
				return InputError(err)
			}
			sys, err := so.systemPart(c)
			if err != nil {
				return err
			}
			if sys == nil {
				sys = json.RawMessage("{}")
			}
			if harness == "" {
				harness = "{}"
			}
			var cfg model.Config
			if err := cfg.UnmarshalJSON([]byte(`{"harness": ` + harness + `, "system": ` + string(sys) + `}`)); err != nil {
				return BadInput("--harness/--config: %w", err)
			}
			renames := map[string]string{}
			for _, t := range tools {
				from, to, ok := strings.Cut(t, "=")
				if !ok || from == "" || to == "" {
					return BadInput("--tool: %q is not FROM=TO", t)
				}
				renames[from] = to
			}
			def, err := p.systemOf(&model.Schedule{Config: cfg}, so.system)
			if err != nil {
				return BadInput("%w", err)
			}
			if err := runnable(def); err != nil {
				return err
			}
			if _, err := def.Fixture(cfg.Fixture); err != nil {
				return BadInput("--harness: %w", err)
			}
			s, err := corpus.ImportPractice(data, marking(def), cfg, renames)
			if err != nil {
				return BadInput("%s: %w", args[0], err)
			}
			s.ExpectTerminal = expect
			out := model.Format(s)
			if _, err := model.ParseSchedule(out); err != nil {
				return BadInput("--expect-terminal: %w", err)
			}
			_, err = c.OutOrStdout().Write(out)
			return OutputError(err)
		},
	}
	so.add(p, c, "import")
	c.Flags().StringVar(&harness, "harness", "", "the config's harness part, a JSON object (default {})")
	c.Flags().StringArrayVar(&tools, "tool", nil, "FROM=TO: rename the file's tool FROM to the system's tool TO (repeatable)")
	c.Flags().StringSliceVar(&expect, "expect-terminal", nil, "each task's expected terminal state, in task order: completed, failed or timed_out")
	return c
}
