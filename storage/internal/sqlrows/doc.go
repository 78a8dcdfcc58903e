// Package sqlrows holds what the SQL backends (storage/sqlite and
// storage/postgres) share: the column lists of their SELECT statements, the
// scanners that turn a row of those columns into a storage record, the
// column form of times, and the reading and running of schema migrations.
//
// Both drivers' rows satisfy [Scanner]. Where the databases store a column
// differently (booleans are integers in SQLite, arrays are JSON text there),
// a scanner takes the destination from a [Dialect], so that each backend
// keeps only that small difference.
package sqlrows
