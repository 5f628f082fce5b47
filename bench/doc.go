// Package bench holds Recall's end-to-end benchmarks, run by `make bench`. Each
// reports its numbers next to the raw ceiling of the parts it depends on, measured
// in the same run on the same machine (JetStream alone, PostgreSQL alone), so the
// ratio is what to watch, not the absolute numbers.
package bench
