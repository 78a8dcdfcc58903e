//go:build race

package sqlite

// raceEnabled reports a -race build, where SQLite runs many times slower.
const raceEnabled = true
