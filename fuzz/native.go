//go:build !gofuzz_libfuzzer

package fuzz

// underLibFuzzer is false under go test (see libfuzzer.go).
const underLibFuzzer = false
