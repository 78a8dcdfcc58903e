package memory

import (
	"slices"
	"time"

	"github.com/teamchat/chat/storage"
)

// messageState holds the users' rows for messages and the reactions; the
// messages themselves are in channelState.
type messageState struct {
	// rows holds each user's flags by message.
	rows map[int64]map[int64]storage.MessageFlags
	// userOrder lists each user's message IDs in increasing order.
	userOrder map[int64][]int64
	// recipients lists each message's users in increasing order.
	recipients map[int64][]int64
	// reactions lists each message's reactions in the order they were
	// made.
	reactions map[int64][]storage.Reaction
	// edits lists each message's edit records in the order they were
	// added.
	edits map[int64][]storage.MessageEditRecord
}

func newMessageState() messageState {
	return messageState{
		rows:       map[int64]map[int64]storage.MessageFlags{},
		userOrder:  map[int64][]int64{},
		recipients: map[int64][]int64{},
		reactions:  map[int64][]storage.Reaction{},
		edits:      map[int64][]storage.MessageEditRecord{},
	}
}

func cloneMessage(m storage.MessageRecord) storage.MessageRecord {
	m.DirectUserIDs = slices.Clone(m.DirectUserIDs)
	return m
}

func (t *tx) CreateMessages(ms []*storage.MessageRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	for _, m := range ms {
		m.ID = nextID(t, &c.lastMessageID)
		setKey(t, c.messages, m.ID, cloneMessage(*m))
		if m.RecipientType == storage.RecipientChannel {
			ch := m.ChannelID
			setKey(t, c.channelMessages, ch, append(c.channelMessages[ch], m.ID))
		} else {
			k := newDirectKey(m.RealmID, m.DirectUserIDs)
			setKey(t, c.directMessages, k, append(c.directMessages[k], m.ID))
		}
		k := senderKey{m.RealmID, m.SenderID}
		setKey(t, c.senderMessages, k, append(c.senderMessages[k], m.ID))
	}
	return nil
}

func (t *tx) Message(id int64) (storage.MessageRecord, error) {
	m, ok := t.s.c.messages[id]
	if !ok {
		return storage.MessageRecord{}, storage.ErrNotFound
	}
	return cloneMessage(m), nil
}

func (t *tx) UpdateMessage(m storage.MessageRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	old, ok := c.messages[m.ID]
	if !ok {
		return storage.ErrNotFound
	}
	// What the indexes of senders and conversations name stays, as in the
	// SQL stores.
	m.RealmID, m.SenderID, m.RecipientType, m.DirectUserIDs = old.RealmID, old.SenderID, old.RecipientType, old.DirectUserIDs
	if m.RecipientType != storage.RecipientChannel {
		m.ChannelID = old.ChannelID
	}
	if m.ChannelID != old.ChannelID {
		setKey(t, c.channelMessages, old.ChannelID, removeSorted(c.channelMessages[old.ChannelID], m.ID))
		setKey(t, c.channelMessages, m.ChannelID, insertSorted(c.channelMessages[m.ChannelID], m.ID))
	}
	setKey(t, c.messages, m.ID, cloneMessage(m))
	return nil
}

func (t *tx) MoveMessages(ids []int64, channelID int64, topic string, editedAt time.Time) error {
	if err := t.writable(); err != nil {
		return err
	}
	for _, id := range ids {
		m, ok := t.s.c.messages[id]
		if !ok || m.RecipientType != storage.RecipientChannel {
			continue
		}
		m.ChannelID, m.Topic, m.EditedAt = channelID, topic, editedAt
		if err := t.UpdateMessage(m); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) TopicMessageIDs(channelID int64, key string, limit int) ([]int64, error) {
	out := []int64{}
	ids := t.s.c.channelMessages[channelID]
	for i := len(ids) - 1; i >= 0 && len(out) < limit; i-- {
		if storage.TopicKey(t.s.c.messages[ids[i]].Topic) == key {
			out = append(out, ids[i])
		}
	}
	return out, nil
}

func (t *tx) DeleteMessages(ids []int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	ms := &t.s.msgs
	gone := map[int64]bool{}
	channels := map[int64]bool{}
	senders := map[senderKey]bool{}
	directs := map[directKey]bool{}
	users := map[int64]bool{}
	for _, id := range ids {
		m, ok := c.messages[id]
		if !ok || gone[id] {
			continue
		}
		gone[id] = true
		deleteKey(t, c.messages, id)
		if m.RecipientType == storage.RecipientChannel {
			channels[m.ChannelID] = true
		} else {
			directs[newDirectKey(m.RealmID, m.DirectUserIDs)] = true
		}
		senders[senderKey{m.RealmID, m.SenderID}] = true
		deleteKey(t, ms.reactions, id)
		deleteKey(t, ms.edits, id)
		recips := ms.recipients[id]
		deleteKey(t, ms.recipients, id)
		for _, u := range recips {
			users[u] = true
			deleteKey(t, ms.rows[u], id)
		}
	}
	for ch := range channels {
		old := c.channelMessages[ch]
		setKey(t, c.channelMessages, ch, slices.DeleteFunc(slices.Clone(old), func(id int64) bool { return gone[id] }))
	}
	for k := range senders {
		setKey(t, c.senderMessages, k, slices.DeleteFunc(slices.Clone(c.senderMessages[k]), func(id int64) bool { return gone[id] }))
	}
	for k := range directs {
		setKey(t, c.directMessages, k, slices.DeleteFunc(slices.Clone(c.directMessages[k]), func(id int64) bool { return gone[id] }))
	}
	for u := range users {
		old := ms.userOrder[u]
		setKey(t, ms.userOrder, u, slices.DeleteFunc(slices.Clone(old), func(id int64) bool { return gone[id] }))
	}
	return nil
}

func (t *tx) OldestChannelMessageID(channelID int64) (int64, error) {
	if ids := t.s.c.channelMessages[channelID]; len(ids) > 0 {
		return ids[0], nil
	}
	return 0, nil
}

func (t *tx) CreateUserMessages(rows []storage.UserMessage) error {
	if err := t.writable(); err != nil {
		return err
	}
	ms := &t.s.msgs
	seen := map[[2]int64]bool{}
	for _, r := range rows {
		k := [2]int64{r.UserID, r.MessageID}
		if seen[k] {
			return storage.ErrExists
		}
		seen[k] = true
		if _, ok := ms.rows[r.UserID][r.MessageID]; ok {
			return storage.ErrExists
		}
		if _, ok := t.s.c.messages[r.MessageID]; !ok {
			return storage.ErrNotFound
		}
		if _, ok := t.s.users[r.UserID]; !ok {
			return storage.ErrNotFound
		}
	}
	for _, r := range rows {
		u, id, f := r.UserID, r.MessageID, r.Flags
		if ms.rows[u] == nil {
			ms.rows[u] = map[int64]storage.MessageFlags{}
		}
		ms.rows[u][id] = f
		oldOrder, oldRecips := ms.userOrder[u], ms.recipients[id]
		ms.userOrder[u] = insertSorted(oldOrder, id)
		ms.recipients[id] = insertSorted(oldRecips, u)
		t.onUndo(func() {
			delete(ms.rows[u], id)
			ms.userOrder[u], ms.recipients[id] = oldOrder, oldRecips
		})
	}
	return nil
}

// insertSorted returns ids with id inserted in order. Appending (the usual
// case: IDs increase) writes past the old length only, which the undo log
// tolerates because it restores the old slice; an insertion in the middle
// copies.
func insertSorted(ids []int64, id int64) []int64 {
	i, _ := slices.BinarySearch(ids, id)
	if i == len(ids) {
		return append(ids, id)
	}
	return slices.Insert(slices.Clone(ids), i, id)
}

func (t *tx) DeleteUserMessages(userIDs, messageIDs []int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	ms := &t.s.msgs
	for _, u := range userIDs {
		for _, id := range messageIDs {
			if _, ok := ms.rows[u][id]; !ok {
				continue
			}
			deleteKey(t, ms.rows[u], id)
			setKey(t, ms.userOrder, u, removeSorted(ms.userOrder[u], id))
			setKey(t, ms.recipients, id, removeSorted(ms.recipients[id], u))
		}
	}
	return nil
}

// removeSorted returns a copy of the sorted ids without id.
func removeSorted(ids []int64, id int64) []int64 {
	i, found := slices.BinarySearch(ids, id)
	if !found {
		return ids
	}
	return slices.Delete(slices.Clone(ids), i, i+1)
}

func (t *tx) UserMessage(userID, messageID int64) (storage.UserMessage, error) {
	f, ok := t.s.msgs.rows[userID][messageID]
	if !ok {
		return storage.UserMessage{}, storage.ErrNotFound
	}
	return storage.UserMessage{UserID: userID, MessageID: messageID, Flags: f}, nil
}

func (t *tx) MessageReaders(messageIDs []int64) ([]int64, error) {
	seen := map[int64]bool{}
	out := []int64{}
	for _, id := range messageIDs {
		for _, u := range t.s.msgs.recipients[id] {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func (t *tx) MessageRecipients(messageID int64) ([]storage.UserMessage, error) {
	ms := &t.s.msgs
	out := []storage.UserMessage{}
	for _, u := range ms.recipients[messageID] {
		out = append(out, storage.UserMessage{UserID: u, MessageID: messageID, Flags: ms.rows[u][messageID]})
	}
	return out, nil
}

func (t *tx) FindMessages(f storage.MessageFilter) ([]storage.MessageRow, error) {
	c, ms := &t.s.c, &t.s.msgs
	// The candidates are the messages of the narrowest list at hand, each
	// then checked against every condition, visibility included.
	var direct []int64
	if len(f.DirectUserIDs) > 0 {
		direct = storage.DirectUserSet(f.DirectUserIDs)
	}
	candidates := ms.userOrder[f.UserID]
	switch {
	case direct != nil:
		candidates = c.directMessages[newDirectKey(f.RealmID, direct)]
	case f.SenderID != 0:
		candidates = c.senderMessages[senderKey{f.RealmID, f.SenderID}]
	case f.ChannelHistory && f.ChannelID != 0:
		candidates = c.channelMessages[f.ChannelID]
	}
	if f.IDs != nil {
		ids := slices.Clone(f.IDs)
		slices.Sort(ids)
		candidates = slices.Compact(ids)
	}
	maxID := f.MaxID
	if maxID == 0 {
		maxID = 1<<63 - 1
	}
	lo, _ := slices.BinarySearch(candidates, f.MinID)
	hi, found := slices.BinarySearch(candidates, maxID)
	if found {
		hi++
	}
	out := []storage.MessageRow{}
	visit := func(id int64) bool {
		m, ok := c.messages[id]
		if !ok || m.RealmID != f.RealmID {
			return true
		}
		flags, received := ms.rows[f.UserID][id]
		if !received && !(f.ChannelHistory && m.RecipientType == storage.RecipientChannel && m.ChannelID == f.ChannelID) {
			return true
		}
		if f.ChannelID != 0 && (m.RecipientType != storage.RecipientChannel || m.ChannelID != f.ChannelID) {
			return true
		}
		if f.Unread && (!received || flags&storage.FlagRead != 0) || f.Starred && flags&storage.FlagStarred == 0 {
			return true
		}
		if f.TopicKey != nil && (m.RecipientType != storage.RecipientChannel || storage.TopicKey(m.Topic) != *f.TopicKey) {
			return true
		}
		if f.SenderID != 0 && m.SenderID != f.SenderID {
			return true
		}
		if direct != nil && (m.RecipientType != storage.RecipientDirect || !slices.Equal(m.DirectUserIDs, direct)) {
			return true
		}
		if !storage.SearchMatches(f.Search, &m) {
			return true
		}
		row := storage.MessageRow{Message: cloneMessage(m), Flags: flags, Received: received}
		if f.WithoutContent {
			row.Message.Content, row.Message.RenderedContent = "", ""
		}
		out = append(out, row)
		return f.Limit == 0 || len(out) < f.Limit
	}
	if f.Descending {
		for i := hi - 1; i >= lo && visit(candidates[i]); i-- {
		}
	} else {
		for i := lo; i < hi && visit(candidates[i]); i++ {
		}
	}
	return out, nil
}

func (t *tx) CreateReaction(r storage.Reaction) error {
	if err := t.writable(); err != nil {
		return err
	}
	ms := &t.s.msgs
	if _, ok := t.s.c.messages[r.MessageID]; !ok {
		return storage.ErrNotFound
	}
	old := ms.reactions[r.MessageID]
	for _, x := range old {
		if x.UserID == r.UserID && x.EmojiCode == r.EmojiCode && x.ReactionType == r.ReactionType {
			return storage.ErrExists
		}
	}
	setKey(t, ms.reactions, r.MessageID, append(slices.Clone(old), r))
	return nil
}

func (t *tx) DeleteReaction(r storage.Reaction) error {
	if err := t.writable(); err != nil {
		return err
	}
	ms := &t.s.msgs
	old := ms.reactions[r.MessageID]
	i := slices.IndexFunc(old, func(x storage.Reaction) bool {
		return x.UserID == r.UserID && x.EmojiCode == r.EmojiCode && x.ReactionType == r.ReactionType
	})
	if i < 0 {
		return storage.ErrNotFound
	}
	setKey(t, ms.reactions, r.MessageID, slices.Delete(slices.Clone(old), i, i+1))
	return nil
}

func (t *tx) Reactions(messageIDs []int64) ([]storage.Reaction, error) {
	ids := slices.Clone(messageIDs)
	slices.Sort(ids)
	out := []storage.Reaction{}
	for _, id := range slices.Compact(ids) {
		out = append(out, t.s.msgs.reactions[id]...)
	}
	return out, nil
}

func (t *tx) MarkRead(userID int64, limit int) ([]int64, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	rows := t.s.msgs.rows[userID]
	var unread []int64
	for id, f := range rows {
		if f&storage.FlagRead == 0 {
			unread = append(unread, id)
		}
	}
	slices.Sort(unread)
	unread = unread[:min(len(unread), limit)]
	for _, id := range unread {
		setKey(t, rows, id, rows[id]|storage.FlagRead)
	}
	if unread == nil {
		unread = []int64{}
	}
	return unread, nil
}

func (t *tx) UpdateUserMessageFlags(userID int64, messageIDs []int64, set, clear storage.MessageFlags) ([]int64, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	ms := &t.s.msgs
	ids := slices.Clone(messageIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	changed := []int64{}
	for _, id := range ids {
		old, ok := ms.rows[userID][id]
		if !ok {
			continue
		}
		if now := (old | set) &^ clear; now != old {
			setKey(t, ms.rows[userID], id, now)
			changed = append(changed, id)
		}
	}
	return changed, nil
}
