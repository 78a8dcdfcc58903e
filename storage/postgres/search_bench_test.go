package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage/internal/searchbench"
	"github.com/teamchat/chat/storage/postgres"
)

// BenchmarkSearchNewest is storage/sqlite's BenchmarkSearchNewest on
// PostgreSQL: it fetches the newest 50 messages of a reader in a history
// of n messages (searchbench's, written through the store): without a
// narrow ("newest"), matching a word every message has ("common"), one in
// every hundredth ("rare"), in one channel, in one topic, from a rare sender
// and in a rare conversation, and from a sender who wrote as often among the
// first 10 000 messages only ("old"). It reports each as µs and
// common/newest; every one should stay flat in n. Each size runs after
// ANALYZE, as autovacuum leaves the tables, and without it, as they are
// right after the load. It runs when CHAT_TEST_POSTGRES_DSN names a
// database (scripts/with-postgres.sh).
func BenchmarkSearchNewest(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, analyze := range []bool{true, false} {
			b.Run(fmt.Sprintf("messages=%d/analyzed=%v", n, analyze), func(b *testing.B) {
				dsn := pgtest.Schema(b)
				s, err := postgres.Open(context.Background(), dsn)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				h := searchbench.Setup(b, s)
				searchbench.Fill(b, &h, n)
				// The statistics autovacuum would gather within a minute of
				// such a load: without them the planner takes the freshly
				// filled tables for empty ones.
				if analyze {
					execAll(b, dsn, "ANALYZE")
				}
				searchbench.Newest(b, h)
			})
		}
	}
}

// BenchmarkSearchScale is storage/sqlite's BenchmarkSearchScale on
// PostgreSQL: the reads of BenchmarkSearchNewest in histories of 100 000
// and 1 000 000 messages against the same in one of 10 000
// (searchbench.Scale, the order of the histories rotating from round to
// round), with for each read the medians in µs at every size and the
// medians of the ratios to 10 000 (goal: at most 1.5). The histories are
// written the same way, by one INSERT ... SELECT per table in one
// transaction, and then vacuumed and analyzed, as autovacuum leaves the
// tables a minute after such a load. One op is one round of every read on
// every history.
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

// openHistory returns a store, in a schema of its own, holding
// searchbench's history of n messages.
func openHistory(b *testing.B, n int) searchbench.History {
	ctx := context.Background()
	dsn := pgtest.Schema(b)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	h := searchbench.Setup(b, s)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// searchbench.Message in SQL: Content and Topic, the sender's, the
		// direct (without a topic) and the old sender's messages (i % 100 =
		// 50, 25, and 75 below 10 000), and the search words the store computes for them: the
		// topic's and the content's, in order.
		if _, err := tx.Exec(ctx, `INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id,
				direct_user_ids, topic, topic_key, content, rendered_content, date_sent, client, search_words)
			SELECT $1, CASE WHEN d THEN $4::bigint WHEN i % 100 = 50 THEN $3::bigint
				WHEN i % 100 = 75 AND i < 10000 THEN $9::bigint ELSE $2::bigint END, CASE WHEN d THEN 2 ELSE 1 END,
				CASE WHEN d THEN 0 ELSE $5::bigint + i % 10 END, CASE WHEN d THEN $6::bigint[] ELSE '{}' END, tp, tp, t,
				'<p>' || t || '</p>', $7, '',
				CASE WHEN d THEN '{}'::text[] ELSE ARRAY[tp] END || ARRAY['common', 'words', 'of', 'message', i::text] ||
					CASE WHEN i % 100 = 0 THEN ARRAY['walrus'] ELSE '{}'::text[] END
			FROM (SELECT i, i % 100 = 25 AS d, CASE WHEN i % 100 = 25 THEN '' ELSE 't' || (i / 10 % 10) END AS tp,
				'common words of message ' || i || CASE WHEN i % 100 = 0 THEN ' walrus' ELSE '' END AS t
				FROM generate_series(0, $8::bigint - 1) AS i) AS g
			ORDER BY i`,
			h.RealmID, h.UserID, h.SenderID, h.PeerID, h.ChannelID, h.Conversation(), searchbench.DateSent.UnixNano(),
			int64(n), h.OldSenderID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO user_messages (user_id, message_id, flags) SELECT $1, id, 0 FROM messages ORDER BY id`, h.UserID)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	execAll(b, dsn, "VACUUM (ANALYZE) messages, user_messages")
	h.N = n
	searchbench.Check(b, h)
	return h
}

// execAll runs statements on a connection of its own, outside any
// transaction (VACUUM cannot run in one).
func execAll(b testing.TB, dsn string, statements ...string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range statements {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
}
