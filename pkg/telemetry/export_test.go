package telemetry

// StartWith is Start with every span handed to exp as it ends, instead of
// the exporters the config names.
var StartWith = start
