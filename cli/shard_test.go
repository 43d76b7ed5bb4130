package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardJSON is what the sharding tests read of explore --json.
type shardJSON struct {
	Found           bool            `json:"found"`
	Checks          int             `json:"checks"`
	ChecksToFailure int             `json:"checks_to_failure"`
	Faults          int             `json:"faults"`
	FaultsReached   int             `json:"faults_reached"`
	Invariant       string          `json:"invariant"`
	Schedule        json.RawMessage `json:"schedule"`
	Shard           int             `json:"shard"`
	Shards          int             `json:"shards"`
	RunChecks       int             `json:"run_checks"`
	// the exhaustive walk's
	Schedules int   `json:"schedules"`
	PerSize   []int `json:"per_size"`
	Index     int   `json:"index"`
	Complete  bool  `json:"complete"`
}

func runJSON(t *testing.T, want int, args ...string) shardJSON {
	t.Helper()
	code, out, stderr := run(t, append(args, "--json")...)
	require.Equal(t, want, code, "%v: %s%s", args, out, stderr)
	var j shardJSON
	require.NoError(t, json.Unmarshal([]byte(out), &j), "%v: %s", args, out)
	return j
}

// TestExploreShardsMergeToTheRun: the three shards of the inventory
// agent's exploration (a user's system, through its Definition) run the
// run's 300 checks: their checks and faults add up to the run's, and
// their coverage files merged with coverage merge are the run's coverage
// file, byte for byte.
func TestExploreShardsMergeToTheRun(t *testing.T) {
	oneGoroutine(t)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	j := runJSON(t, 0, append(exploreArgs, "--coverage", whole)...)
	require.Equal(t, shardJSON{Checks: 300, Faults: 592, FaultsReached: 588}, j)
	merge := []string{"coverage", "merge", filepath.Join(dir, "merged.json")}
	var sum shardJSON
	for i := 1; i <= 3; i++ {
		cov := filepath.Join(dir, fmt.Sprintf("cov-%d.json", i))
		j := runJSON(t, 0, append(exploreArgs, "--shard", fmt.Sprintf("%d/3", i), "--coverage", cov)...)
		assert.Equal(t, shardJSON{Checks: 100, Faults: j.Faults, FaultsReached: j.FaultsReached, Shard: i, Shards: 3, RunChecks: 300}, j)
		sum.Checks, sum.Faults, sum.FaultsReached = sum.Checks+j.Checks, sum.Faults+j.Faults, sum.FaultsReached+j.FaultsReached
		merge = append(merge, cov)
	}
	assert.Equal(t, shardJSON{Checks: 300, Faults: 592, FaultsReached: 588}, sum)
	code, out, stderr := run(t, merge...)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	want, err := os.ReadFile(whole)
	require.NoError(t, err)
	got, err := os.ReadFile(merge[2])
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "the merged coverage of the shards and the run's")

	code, out, _ = run(t, append(exploreArgs, "--shard", "2/3")...)
	assert.Equal(t, 0, code)
	assert.Equal(t, "no counterexample in 100 checks (shard 2/3 of 300 checks, seed 1, controls stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority, variant fixed, fixture inventory)\n"+
		"faults: 201 of 203 scheduled reached (122 fired), 2 not reached\n", out)
}

// TestExploreShardFindsTheRunsCounterexample: the planted bug's
// counterexample at check k of the run is found by the shard owning k,
// at check k, with the same minimal schedule; the other shards find none
// before k, and each exits 0 or 1 by its own verdict.
func TestExploreShardFindsTheRunsCounterexample(t *testing.T) {
	if raceDetector {
		t.Skip("five sharded explorations of a one-task workload in one goroutine, where the race detector has nothing to check; go test ./... runs this test")
	}
	planted := append(exploreArgs[:len(exploreArgs):len(exploreArgs)], "--seed", plantedSeed, "--config", `{"variant":"planted"}`)
	whole := runJSON(t, 1, planted...)
	require.True(t, whole.Found)
	k := whole.ChecksToFailure
	for _, n := range []int{2, 3} {
		least := 0
		for i := 1; i <= n; i++ {
			code, out, stderr := run(t, append(planted, "--shard", fmt.Sprintf("%d/%d", i, n), "--json")...)
			var j shardJSON
			require.NoError(t, json.Unmarshal([]byte(out), &j), "%s%s", out, stderr)
			if j.Found {
				assert.Equal(t, 1, code)
				if least == 0 || j.ChecksToFailure < least {
					least = j.ChecksToFailure
				}
			} else {
				assert.Equal(t, 0, code, "%s", stderr)
			}
			if (k-1)%n != i-1 {
				assert.False(t, j.Found && j.ChecksToFailure <= k, "shard %d/%d: a counterexample at check %d, the run's at %d", i, n, j.ChecksToFailure, k)
				continue
			}
			assert.Equal(t, shardJSON{Found: true, Checks: (k-1)/n + 1, ChecksToFailure: k, Faults: j.Faults, FaultsReached: j.FaultsReached,
				Invariant: whole.Invariant, Schedule: whole.Schedule, Shard: i, Shards: n, RunChecks: 300}, j)
		}
		assert.Equal(t, k, least, "%d shards: the least counterexample index", n)
	}
}

// TestExploreShardBadInput: a bad --shard, or one that cannot be a shard
// of the run, exits 2 naming the flag.
func TestExploreShardBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "", "--seed", "1"}, "--shard is empty"},
		{[]string{"--shard", "3", "--seed", "1"}, `--shard: "3" is not I/N`},
		{[]string{"--shard", "0/3", "--seed", "1"}, `--shard: "0/3": I must be between 1 and N (3), got 0`},
		{[]string{"--shard", "4/3", "--seed", "1"}, `--shard: "4/3": I must be between 1 and N (3), got 4`},
		{[]string{"--shard", "1/10001", "--seed", "1"}, `--shard: "1/10001": N must be between 1 and 10000, got 10001`},
		{[]string{"--shard", "1/x", "--seed", "1"}, `--shard: "1/x" is not I/N with I and N whole numbers`},
		{[]string{"--shard", "2/3"}, "--shard needs --seed"},
		{[]string{"--shard", "5/5", "--seed", "1", "--checks", "4"}, "--shard 5/5: 5 shards of --checks 4 leave shard 5 without checks"},
		{[]string{"--shard", "1/2", "--seed", "1", "--guided"}, "--guided does not apply to --shard"},
		{[]string{"--seed", "0"}, "--seed 0 is rapid's random seed"},
		{[]string{"--exhaustive", "--shard", "3/2"}, `--shard: "3/2": I must be between 1 and N (2), got 3`},
	} {
		code, out, stderr := run(t, append([]string{"explore"}, c.args...)...)
		assert.Equal(t, 2, code, "%v: %s", c.args, out)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
}

// TestExhaustiveShards: the shards of the exhaustive walk of the
// inventory agent add up to the walk (schedules and per size), each
// complete; with the planted bug the walk's counterexample at position m
// is the least index among the shards, found by the shard owning m.
func TestExhaustiveShards(t *testing.T) {
	walk := []string{"explore", "--exhaustive", "--domains", "tool", "--no-world", "--max-faults", "2"}
	whole := runJSON(t, 0, walk...)
	require.True(t, whole.Complete)
	require.Greater(t, whole.Schedules, 100)
	for _, n := range []int{2, 5} {
		var sum shardJSON
		sum.PerSize = make([]int, len(whole.PerSize))
		for i := 1; i <= n; i++ {
			j := runJSON(t, 0, append(walk, "--shard", fmt.Sprintf("%d/%d", i, n))...)
			assert.True(t, j.Complete)
			assert.Equal(t, []int{i, n}, []int{j.Shard, j.Shards})
			sum.Schedules += j.Schedules
			for k, c := range j.PerSize {
				sum.PerSize[k] += c
			}
		}
		assert.Equal(t, whole.Schedules, sum.Schedules, "%d shards", n)
		assert.Equal(t, whole.PerSize, sum.PerSize, "%d shards", n)
	}
	planted := append(walk, "--config", `{"variant":"planted"}`)
	cx := runJSON(t, 1, planted...)
	m := cx.Index
	require.Greater(t, m, 1)
	least := 0
	for i := 1; i <= 3; i++ {
		code, out, _ := run(t, append(planted, "--shard", fmt.Sprintf("%d/3", i), "--json")...)
		var j shardJSON
		require.NoError(t, json.Unmarshal([]byte(out), &j))
		if j.Found {
			assert.Equal(t, 1, code)
			if least == 0 || j.Index < least {
				least = j.Index
			}
		}
		if (m-1)%3 == i-1 {
			assert.Equal(t, m, j.Index)
			assert.Equal(t, string(cx.Schedule), string(j.Schedule))
		}
	}
	assert.Equal(t, m, least)
	code, out, _ := run(t, append(walk, "--shard", "1/2")...)
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "shard 1/2 of the exhaustive walk: the counts are the shard's own schedules"), out)
}
