#!/bin/bash -eu
# Builds every native Go fuzz target of package fuzz as a libFuzzer binary
# in $OUT, with the base image's compile_native_go_fuzzer helper.
#
# The helper's rules, which the targets keep (scripts/fuzztool's tests
# check them without a container engine):
#   - it finds a target's file by grepping the package directory for the
#     target's name, so each name appears in exactly one .go file there;
#   - that file is compiled as an ordinary (non-test) file of package fuzz
#     with the testing import replaced, so it is in package fuzz (not
#     fuzz_test), uses only helpers from non-test files, and calls only
#     F.Add, F.Fuzz, F.Fatal, F.Logf and T.Fatal;
#   - F.Add is ignored: seeds come from the farm's corpus, and the targets
#     skip reading reference/corpus/ under the gofuzz_libfuzzer build tag.
#
# go.mod asks for Go 1.26: when the base image's Go is older, the go command
# fetches that toolchain itself (GOTOOLCHAIN=auto, the default).
cd "$SRC/faultline"

# The rewritten target file imports go-118-fuzz-build's testing package:
# make it a requirement of the module for this build only.
printf 'package fuzz\n\nimport _ "github.com/AdamKorcz/go-118-fuzz-build/testing"\n' > fuzz/register_libfuzzer.go
go get github.com/AdamKorcz/go-118-fuzz-build/testing
go mod tidy

# Every target but one is built. Left out:
# FuzzRapid: rapid.MakeFuzz hands f.Fuzz a function of the standard
# library's *testing.T, which the replacement testing package cannot call;
# it runs under go test -fuzz (scripts/fuzz-nightly.sh), and the farm's
# FuzzComposition explores the same compositions through the byte decoder.
compile_native_go_fuzzer github.com/faultline/faultline/fuzz FuzzComposition fuzz_composition
compile_native_go_fuzzer github.com/faultline/faultline/fuzz FuzzScheduleDecode fuzz_schedule_decode
compile_native_go_fuzzer github.com/faultline/faultline/fuzz FuzzReplayDeterminism fuzz_replay_determinism
