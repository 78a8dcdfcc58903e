//go:build race

package chat_test

// raceEnabled says the tests run under the race detector, which slows the
// SQLite backend some fifty-fold.
const raceEnabled = true
