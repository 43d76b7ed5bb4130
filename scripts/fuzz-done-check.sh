#!/usr/bin/env bash
# fuzz-done-check.sh: check, with real go test -fuzz runs, that a native
# fuzz target built on fuzz.NewTarget with the documented
#
#   f.Cleanup(func() { if err := target.Done(); err != nil { f.Error(err) } })
#   f.Fuzz(target.Fuzz)
#
# passes only when the campaign's inputs, which run in worker processes,
# reached and fired a fault: the coordinator's Done adds the workers'
# records (FAULTLINE_FUZZ_TALLY, docs/fuzzing.md). The rule is the same for
# production code (a Definition with a Clock, each run in a synctest
# bubble).
#
# It writes a module of its own in a temporary directory (replacing
# github.com/faultline/faultline with this checkout) with two targets on
# examples/inventory: FuzzReached (the default sites, every one reached)
# and FuzzUnreached (memory_loss only, at memory.read#1, which the agent
# never crosses), and the same two on a small production system
# (FuzzProductionReached, FuzzProductionUnreached). It expects:
#
#   1. go test (the seeds, in one process): FuzzReached and
#      FuzzProductionReached pass, FuzzUnreached and
#      FuzzProductionUnreached fail as inconclusive;
#   2. go test -fuzz FuzzReached -fuzztime T: passes;
#   3. go test -fuzz FuzzUnreached -fuzztime T and go test -fuzz
#      FuzzProductionUnreached -fuzztime T: fail as inconclusive, with the
#      workers' counts;
#   4. no tally directory left behind.
#
# Usage (from anywhere in a checkout; needs only Go and bash):
#
#   scripts/fuzz-done-check.sh [-time 10s]
#
# Exit status: 0 when every expectation held, 1 when one did not, 2 for bad
# usage. About a minute and a half with -time 10s.
set -uo pipefail

fuzztime=10s
while [ $# -gt 0 ]; do
	case "$1" in
	-time) fuzztime="${2:?-time needs a duration}"; shift 2 ;;
	*) echo "usage: $0 [-time 10s]" >&2; exit 2 ;;
	esac
done

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR" "$work/m"
cd "$work/m" || exit 1

cat > go.mod <<EOM
module example.com/donecheck

go 1.26.0

require github.com/faultline/faultline v0.0.0

replace github.com/faultline/faultline => $repo
EOM
cat > done_test.go <<'EOM'
package donecheck

import (
	"context"
	"testing"
	"time"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

func target(f *testing.F, def *model.Definition, opts ...fuzz.Option) {
	target, err := fuzz.NewTarget(def, opts...)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		if err := target.Done(); err != nil {
			f.Error(err)
		}
	})
	f.Add([]byte{0})
	f.Fuzz(target.Fuzz)
}

func FuzzReached(f *testing.F) { target(f, inventory.Definition()) }

func FuzzUnreached(f *testing.F) {
	target(f, inventory.Definition(), fuzz.WithCatalogueSites(), fuzz.WithKinds("memory_loss"))
}

// payer is production code: it waits 20 ms (the bubble's clock) and pays
// once through env.Calls, idempotent by key.
type payer struct{ paid map[string]bool }

func (p payer) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	time.Sleep(20 * time.Millisecond)
	c, err := env.Calls.Commit(ctx, model.ToolCall{Tool: "pay", RequestKey: task.ID, Action: model.Action{Subject: task.Subject, IdempotencyKey: task.ID}},
		func(context.Context, model.ToolCall) model.ToolResult {
			replayed := p.paid[task.ID]
			p.paid[task.ID] = true
			return model.ToolResult{Outcome: model.OutcomeCommitted, Replayed: replayed, Receipt: &model.Receipt{ID: "r"}}
		})
	if err != nil || c.Result.Outcome != model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimHold}, err
	}
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

func (p payer) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	var rows []model.LedgerEntry
	for k := range p.paid {
		rows = append(rows, model.LedgerEntry{Tool: "pay", Key: k, Subject: "s1", ActionRef: k})
	}
	return rows, nil
}

func production() *model.Definition {
	def := model.Define("payer", model.Fixture{Name: "payer", Tasks: []model.Task{{ID: "t1", Subject: "s1"}}},
		func() model.System { return payer{paid: map[string]bool{}} })
	def.Builtin = []string{model.InvEffectAtMostOnce}
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	def.Clock = func() model.Millis { return model.Millis(time.Since(start).Milliseconds()) }
	return def
}

func FuzzProductionReached(f *testing.F) { target(f, production(), fuzz.WithScope("ordinals")) }

func FuzzProductionUnreached(f *testing.F) {
	target(f, production(), fuzz.WithCatalogueSites(), fuzz.WithKinds("memory_loss"))
}
EOM
cp "$repo/go.sum" . 2>/dev/null
if ! out=$(go mod tidy 2>&1); then
	echo "fuzz-done-check: go mod tidy failed:"; echo "$out"; exit 1
fi

fail=0
expect() { # name, want (pass|inconclusive), output, status
	local name="$1" want="$2" out="$3" status="$4"
	local got=pass
	if [ "$status" -ne 0 ]; then
		got=fail
		if grep -q "inconclusive: none of the .* faults scheduled in .* runs was reached" <<<"$out"; then
			got=inconclusive
		fi
	fi
	if [ "$got" = "$want" ]; then
		echo "ok   $name: $want"
	else
		echo "FAIL $name: want $want, got $got:"
		sed 's/^/     /' <<<"$out" | tail -15
		fail=1
	fi
}

out=$(go test -count=1 -run '^FuzzReached$' . 2>&1); expect "go test FuzzReached (seeds)" pass "$out" $?
out=$(go test -count=1 -run '^FuzzUnreached$' . 2>&1); expect "go test FuzzUnreached (seeds)" inconclusive "$out" $?
out=$(go test -count=1 -run '^FuzzProductionReached$' . 2>&1); expect "go test FuzzProductionReached (seeds)" pass "$out" $?
out=$(go test -count=1 -run '^FuzzProductionUnreached$' . 2>&1); expect "go test FuzzProductionUnreached (seeds)" inconclusive "$out" $?
out=$(go test -run '^$' -fuzz '^FuzzReached$' -fuzztime "$fuzztime" . 2>&1); expect "go test -fuzz FuzzReached -fuzztime $fuzztime" pass "$out" $?
for t in FuzzUnreached FuzzProductionUnreached; do
	out=$(go test -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" . 2>&1); s=$?
	expect "go test -fuzz $t -fuzztime $fuzztime" inconclusive "$out" $s
	if [ "$s" -ne 0 ] && ! grep -q "records of [1-9][0-9]* fuzzing worker processes" <<<"$out"; then
		echo "FAIL go test -fuzz $t: the error does not count the workers' records:"
		sed 's/^/     /' <<<"$out" | tail -5
		fail=1
	fi
done
left=$(find "$TMPDIR" -maxdepth 1 -name 'faultline-fuzz-tally-*' | wc -l)
if [ "$left" -eq 0 ]; then
	echo "ok   no tally directory left"
else
	echo "FAIL $left tally directories left in $TMPDIR"
	fail=1
fi
exit $fail
