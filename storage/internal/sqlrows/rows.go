package sqlrows

import "github.com/teamchat/chat/storage"

// Rows is a result being read: *sql.Rows and pgx.Rows.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Each calls scan for each row of rows and returns its first error, or
// rows.Err(). The caller closes rows.
func Each[R Rows](rows R, scan func(Scanner) error) error {
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Into returns a callback for Each that appends to out what scan makes of
// each row, read in dialect d.
func Into[T any](d Dialect, out *[]T, scan func(Dialect, Scanner) (T, error)) func(Scanner) error {
	return func(sc Scanner) error {
		v, err := scan(d, sc)
		if err != nil {
			return err
		}
		*out = append(*out, v)
		return nil
	}
}

// ID reads a row of one integer column, such as an ID.
func ID(_ Dialect, sc Scanner) (int64, error) {
	var id int64
	err := sc.Scan(&id)
	return id, err
}

// Tx is what the transactions of the SQL backends implement: the storage
// SPI and every optional query of it.
type Tx interface {
	storage.Tx
	storage.UsersByRoleTx
	storage.BotsOwnedByTx
	storage.ChannelsByNameTx
	storage.SubscriptionColorsTx
	storage.RealmDomainByNameTx
	storage.UserMessageTx
}
