package storage

// BotStorageEntry is one key of a user's bot storage, the key-value store
// that bots keep their state in.
type BotStorageEntry struct {
	UserID     int64
	Key, Value string
}

// BotStorageTx stores the bot storage of users.
type BotStorageTx interface {
	// BotStorage returns the user's entries ordered by key: all of them
	// when keys is nil, otherwise those whose key is in keys (unknown keys
	// are skipped).
	BotStorage(userID int64, keys []string) ([]BotStorageEntry, error)
	// BotStorageSize returns the number of Unicode code points in the
	// keys and values of the user's entries.
	BotStorageSize(userID int64) (int64, error)
	// SetBotStorage stores the entries, replacing the values of keys that
	// exist; their users must exist.
	SetBotStorage(entries []BotStorageEntry) error
	// DeleteBotStorage removes the user's entries whose key is in keys;
	// unknown keys are skipped.
	DeleteBotStorage(userID int64, keys []string) error
}

// BotService is where an outgoing-webhook bot sends the messages that
// trigger it.
type BotService struct {
	BotID   int64
	RealmID int64
	// PayloadURL is the URL the messages are POSTed to; Token is sent with
	// each, so that the receiver can tell the server's requests.
	PayloadURL string
	Token      string
	// Interface is the payload format: 1 for the reference's own.
	Interface int
}

// BotServiceTx stores the services of outgoing-webhook bots.
type BotServiceTx interface {
	// SetBotService stores the bot's service, replacing the one it has;
	// the bot must exist.
	SetBotService(s BotService) error
	// RealmBotServices returns the services of the realm's bots, ordered
	// by bot ID.
	RealmBotServices(realmID int64) ([]BotService, error)
}
