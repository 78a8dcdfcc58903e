package sqlite

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// recipientLists returns the lists of message_recipients and the lists
// that user_messages holds, by message, for a test to compare.
func recipientLists(t *testing.T, s *Store) (listed, stored map[int64]string) {
	t.Helper()
	listed, stored = map[int64]string{}, map[int64]string{}
	for q, into := range map[string]map[int64]string{
		`SELECT message_id, user_ids FROM message_recipients`:                                                  listed,
		`SELECT message_id, json_group_array(user_id ORDER BY user_id) FROM user_messages GROUP BY message_id`: stored,
	} {
		rows, err := s.writer.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var users string
			if err := rows.Scan(&id, &users); err != nil {
				t.Fatal(err)
			}
			into[id] = users
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return listed, stored
}

// TestRecipientListsInStep follows the recipient lists (recipients.go)
// through every write of users' rows: each step leaves them as the rows
// are, and each step is checked against the lists it must leave.
func TestRecipientListsInStep(t *testing.T) {
	s, err := openStore(t.TempDir()+"/chat.db", 3, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	realmID, channelID, u := bigChannel(t, s, 5)
	var m []int64
	send := func(tx storage.Tx) (int64, error) {
		msg := &storage.MessageRecord{RealmID: realmID, SenderID: u[0], RecipientType: storage.RecipientChannel,
			ChannelID: channelID, Topic: "t", Content: "hi", DateSent: time.Unix(1, 0)}
		err := tx.CreateMessages([]*storage.MessageRecord{msg})
		return msg.ID, err
	}
	// want is called after fn, which makes the messages it names.
	step := func(name string, fn func(tx storage.Tx) error, want func() map[int64]string) {
		t.Helper()
		update(t, s, fn)
		listed, stored := recipientLists(t, s)
		if diff := cmp.Diff(want(), listed); diff != "" {
			t.Errorf("%s: lists (-want +got):\n%s", name, diff)
		}
		if pendingCount(t, s) == 0 {
			if diff := cmp.Diff(stored, listed); diff != "" {
				t.Errorf("%s: lists against the rows (-rows +lists):\n%s", name, diff)
			}
		}
	}
	list := func(users ...int64) string { return jsonIDs(users) }
	step("a big message: the sender's row at once, four deferred", func(tx storage.Tx) error {
		id, err := send(tx)
		if err != nil {
			return err
		}
		m = append(m, id)
		rows := []storage.UserMessage{{UserID: u[0], MessageID: id, Flags: storage.FlagRead}}
		for _, v := range u[1:] {
			rows = append(rows, storage.UserMessage{UserID: v, MessageID: id})
		}
		return tx.CreateUserMessages(rows)
	}, func() map[int64]string { return map[int64]string{m[0]: list(u[0])} })
	all := list(u...)
	step("settled", func(st storage.Tx) error { return st.(*tx).settle() },
		func() map[int64]string { return map[int64]string{m[0]: all} })
	step("two rows of a new message", func(tx storage.Tx) error {
		id, err := send(tx)
		if err != nil {
			return err
		}
		m = append(m, id)
		return tx.CreateUserMessages([]storage.UserMessage{{UserID: u[3], MessageID: id}, {UserID: u[1], MessageID: id}})
	}, func() map[int64]string { return map[int64]string{m[0]: all, m[1]: list(u[1], u[3])} })
	step("a row added to a message that has some", func(tx storage.Tx) error {
		return tx.CreateUserMessages([]storage.UserMessage{{UserID: u[2], MessageID: m[1], Flags: storage.FlagStarred}})
	}, func() map[int64]string { return map[int64]string{m[0]: all, m[1]: list(u[1], u[2], u[3])} })
	step("a row already there fails and lists nothing", func(tx storage.Tx) error {
		err := tx.CreateUserMessages([]storage.UserMessage{{UserID: u[4], MessageID: m[1]}, {UserID: u[3], MessageID: m[1]}})
		if !errors.Is(err, storage.ErrExists) {
			t.Errorf("CreateUserMessages of a row there: %v, want ErrExists", err)
		}
		return nil
	}, func() map[int64]string { return map[int64]string{m[0]: all, m[1]: list(u[1], u[2], u[3])} })
	step("rows deleted, and a list left empty", func(tx storage.Tx) error {
		return tx.DeleteUserMessages([]int64{u[1], u[2], u[3]}, []int64{m[1], m[0]})
	}, func() map[int64]string { return map[int64]string{m[0]: list(u[0], u[4])} })
	step("a message deleted", func(tx storage.Tx) error { return tx.DeleteMessages(m[:1]) },
		func() map[int64]string { return map[int64]string{} })
	var left int
	if err := s.reader.QueryRow(`SELECT count(*) FROM user_messages`).Scan(&left); err != nil || left != 0 {
		t.Errorf("rows after deleting the messages that had them: %d, %v; want none", left, err)
	}
}
