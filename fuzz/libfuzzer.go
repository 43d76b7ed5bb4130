//go:build gofuzz_libfuzzer

package fuzz

// underLibFuzzer is true in a libFuzzer build of the targets (the build
// helper of ClusterFuzzLite and OSS-Fuzz sets the gofuzz_libfuzzer tag),
// where seeds come from the farm's corpus and the target function runs
// once per input: the targets then skip reading the corpus directory.
const underLibFuzzer = true
