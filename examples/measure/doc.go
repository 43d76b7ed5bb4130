// Package measure holds the measurements over the example systems
// (examples/billing, examples/inventory) that are no part of either: the
// campaign with every planted bug off (a fixed seed and a few hundred
// checks in go test, 10 seeds of 1,000 checks in
// scripts/examples-campaign.sh), which must find nothing and reach every
// fault kind in scope, and the count of each example's glue (the test
// code its README paths need) against its own code, which docs/examples.md
// tabulates. It has no API: its content is its tests.
package measure
