//go:build !race

package slackimport_test

// raceEnabled says the tests run under the race detector, which slows the
// SQLite backend some fifty-fold.
const raceEnabled = false
