package sqlite

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/teamchat/chat/storage/internal/searchbench"
)

// BenchmarkSearchNewest fetches the newest 50 messages of a reader in a
// history of n messages (searchbench's, written through the store): without
// a narrow ("newest"), matching a word every message has ("common"), one in
// every hundredth ("rare"), in one channel, in one topic, from a sender of
// one message in a hundred ("sender"), in a conversation of as many ("dm"),
// and from a sender who wrote as often among the first 10 000 messages only
// ("old"). It reports each as µs and common/newest, the cost of a common
// word over a plain fetch; every one should stay flat in n.
func BenchmarkSearchNewest(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "chat.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			h := searchbench.Setup(b, s)
			searchbench.Fill(b, &h, n)
			searchbench.Newest(b, h)
		})
	}
}

// BenchmarkSearchScale compares the reads of BenchmarkSearchNewest in
// histories of 100 000 and 1 000 000 messages with the same in one of
// 10 000 (searchbench.Scale, the order of the stores rotating from round to
// round): for each read the medians in µs at every size and the medians of
// the ratios to 10 000 (goal: at most 1.5). The histories are written the
// same way, with raw SQL in one transaction per table (the full-text
// triggers fire for every row). Filling the stores takes 15-35 s; one op
// is one round of every read on every store.
func BenchmarkSearchScale(b *testing.B) {
	searchbench.Scale(b, searchbench.Histories(b, openHistory))
}

// BenchmarkNarrowBeforeScale measures, in the histories of
// BenchmarkSearchScale, the narrows by sender and by direct conversation as
// the root package read them before the store had their conditions: the
// reader's rows newest first, 100 at a time, a predicate keeping the
// matches (searchbench.ScaleBefore). The sender and the conversation have
// one message in 100, so it reads 5 000 rows for 50 matches at every size;
// the old sender's last message is 990 000 messages back at 1 000 000, so
// it reads almost every row there. Apart from BenchmarkSearchScale, whose
// reads these would push out of the caches.
func BenchmarkNarrowBeforeScale(b *testing.B) {
	searchbench.ScaleBefore(b, searchbench.Histories(b, openHistory))
}

// openHistory returns a new store holding searchbench's history of n
// messages, written with one INSERT ... SELECT per table.
func openHistory(b *testing.B, n int) searchbench.History {
	path := filepath.Join(b.TempDir(), "chat.db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	h := searchbench.Setup(b, s)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	// searchbench.Message in SQL: Content and Topic, and the sender's, the
	// direct and the old sender's messages (i % 100 = 50, 25, and 75 below
	// 10 000).
	if _, err := tx.Exec(`WITH RECURSIVE g (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i + 1 < ?1)
		INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id, direct_user_ids, topic, topic_key,
			content, rendered_content, date_sent, client)
		SELECT ?2, CASE WHEN d THEN ?5 WHEN i % 100 = 50 THEN ?4 WHEN i % 100 = 75 AND i < 10000 THEN ?9 ELSE ?3 END, iif(d, 2, 1), iif(d, 0, ?6 + i % 10),
			iif(d, ?7, '[]'), iif(d, '', 't' || (i / 10 % 10)), iif(d, '', 't' || (i / 10 % 10)), t, '<p>' || t || '</p>', ?8, ''
		FROM (SELECT i, i % 100 = 25 AS d, 'common words of message ' || i || iif(i % 100 = 0, ' walrus', '') AS t FROM g)`,
		n, h.RealmID, h.UserID, h.SenderID, h.PeerID, h.ChannelID, jsonIDs(h.Conversation()),
		searchbench.DateSent.UnixNano(), h.OldSenderID); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO user_messages (user_id, message_id, flags) SELECT ?, id, 0 FROM messages ORDER BY id`, h.UserID); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	h.N = n
	searchbench.Check(b, h)
	return h
}
