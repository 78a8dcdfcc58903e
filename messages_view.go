package chat

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// MessageView is a message object as clients receive it.
type MessageView struct {
	ID             int64  `json:"id"`
	SenderID       int64  `json:"sender_id"`
	SenderFullName string `json:"sender_full_name"`
	SenderEmail    string `json:"sender_email"`
	SenderRealmStr string `json:"sender_realm_str"`
	// AvatarURL is nil when the client computes the sender's avatar.
	AvatarURL   *string `json:"avatar_url"`
	Content     string  `json:"content"`
	ContentType string  `json:"content_type"`
	RecipientID int64   `json:"recipient_id"`
	Timestamp   int64   `json:"timestamp"`
	Client      string  `json:"client"`
	// Subject is the topic; "" for direct messages.
	Subject     string         `json:"subject"`
	TopicLinks  []TopicLink    `json:"topic_links"`
	IsMeMessage bool           `json:"is_me_message"`
	Reactions   []ReactionView `json:"reactions"`
	Submessages []any          `json:"submessages"`
	// Flags are the reader's flags; nil inside message events, which
	// carry them beside the message.
	Flags *[]string `json:"flags,omitempty"`
	// DisplayRecipient is the channel name or the list of DirectRecipient.
	DisplayRecipient any    `json:"display_recipient"`
	Type             string `json:"type"`
	StreamID         *int64 `json:"stream_id,omitempty"`
	// LastEditTimestamp is set for messages whose content was edited,
	// LastMovedTimestamp for those moved to another topic or channel.
	LastEditTimestamp  *int64 `json:"last_edit_timestamp,omitempty"`
	LastMovedTimestamp *int64 `json:"last_moved_timestamp,omitempty"`
	// EditHistory lists the edits and moves of the message, newest first;
	// absent for a message never edited.
	EditHistory []EditHistoryEntry `json:"edit_history,omitempty"`
	// MatchContent and MatchSubject are set for searches.
	MatchContent *string `json:"match_content,omitempty"`
	MatchSubject *string `json:"match_subject,omitempty"`
}

// EditHistoryEntry is one edit or move in a message object's
// edit_history: who, when, and what it replaced.
type EditHistoryEntry struct {
	UserID              int64   `json:"user_id"`
	Timestamp           int64   `json:"timestamp"`
	PrevContent         *string `json:"prev_content,omitempty"`
	PrevRenderedContent *string `json:"prev_rendered_content,omitempty"`
	PrevTopic           *string `json:"prev_topic,omitempty"`
	Topic               *string `json:"topic,omitempty"`
	PrevStream          *int64  `json:"prev_stream,omitempty"`
	Stream              *int64  `json:"stream,omitempty"`
}

// DirectRecipient is one participant of a direct message.
type DirectRecipient struct {
	ID             int64  `json:"id"`
	Email          string `json:"email"`
	FullName       string `json:"full_name"`
	IsMirrorDummy  bool   `json:"is_mirror_dummy"`
	emailForSortIn string
}

// ReactionView is a reaction in a message object.
type ReactionView struct {
	EmojiName    string       `json:"emoji_name"`
	EmojiCode    string       `json:"emoji_code"`
	ReactionType ReactionType `json:"reaction_type"`
	UserID       int64        `json:"user_id"`
}

// MessageFormat is how a reader wants message objects.
type MessageFormat struct {
	// ApplyMarkdown gives HTML content; otherwise the Markdown source.
	ApplyMarkdown bool
	// ClientGravatar leaves avatar_url null where the client computes it.
	ClientGravatar bool
	// AllowEmptyTopicName keeps the empty topic ""; otherwise it is shown
	// as "general chat".
	AllowEmptyTopicName bool
}

// messageData is a message with what every reader sees of it alike; a
// MessageView is made from it per format.
type messageData struct {
	m           storage.MessageRecord
	senderName  string
	senderEmail string
	realmStr    string
	// gravatarAllowed says the client may compute the sender's avatar
	// from sender_email: it is the real address and the avatar is a
	// Gravatar.
	gravatarAllowed bool
	avatarURL       string
	channelName     string
	direct          []DirectRecipient
	topicLinks      []TopicLink
	reactions       []ReactionView
	edits           []storage.MessageEditRecord
	historyPolicy   EditHistoryPolicy
}

// messageLoader reads, once per request, the users and channels that
// message objects name.
type messageLoader struct {
	tx          storage.Tx
	realm       Realm
	emailDomain string
	users       map[int64]*storage.UserRecord
	channels    map[int64]*storage.Channel
	linkifiers  []compiledWithID
	// fresh says the messages were created in this transaction, so they
	// have no reactions and no edits to read.
	fresh bool
}

func (s *Service) newMessageLoader(tx storage.Tx, realm Realm) (*messageLoader, error) {
	ls, err := realmLinkifiers(tx, realm.ID)
	if err != nil {
		return nil, err
	}
	return s.newMessageLoaderWith(tx, realm, compileLinkifiers(ls)), nil
}

// newMessageLoaderWith is newMessageLoader with the realm's linkifiers
// already read and compiled.
func (s *Service) newMessageLoaderWith(tx storage.Tx, realm Realm, linkifiers []compiledWithID) *messageLoader {
	return &messageLoader{tx: tx, realm: realm, emailDomain: s.emailDomain(realm),
		users: map[int64]*storage.UserRecord{}, channels: map[int64]*storage.Channel{}, linkifiers: linkifiers}
}

// load builds the reader-independent data of the messages.
func (l *messageLoader) load(ms []storage.MessageRecord) ([]*messageData, error) {
	var need []int64
	var ids []int64
	for i := range ms {
		m := &ms[i]
		ids = append(ids, m.ID)
		for _, id := range append([]int64{m.SenderID}, m.DirectUserIDs...) {
			if _, ok := l.users[id]; !ok && id != NotificationBotID {
				need = append(need, id)
			}
		}
		if m.RecipientType == RecipientChannel {
			if _, ok := l.channels[m.ChannelID]; !ok {
				c, err := l.tx.Channel(m.ChannelID)
				if err != nil {
					return nil, err
				}
				l.channels[c.ID] = &c
			}
		}
	}
	if len(need) > 0 {
		users, err := l.tx.Users(l.realm.ID, uniqueIDs(need))
		if err != nil {
			return nil, err
		}
		for i := range users {
			l.users[users[i].ID] = &users[i]
		}
	}
	byMessage := map[int64][]ReactionView{}
	var edits map[int64][]storage.MessageEditRecord
	if !l.fresh {
		reactions, err := l.tx.Reactions(ids)
		if err != nil {
			return nil, err
		}
		for _, r := range reactions {
			byMessage[r.MessageID] = append(byMessage[r.MessageID], ReactionView{r.EmojiName, r.EmojiCode, r.ReactionType, r.UserID})
		}
		if edits, err = l.edits(ms); err != nil {
			return nil, err
		}
	}
	out := make([]*messageData, len(ms))
	for i := range ms {
		d := l.data(ms[i])
		if rs := byMessage[ms[i].ID]; rs != nil {
			d.reactions = rs
		}
		d.edits = edits[ms[i].ID]
		out[i] = d
	}
	return out, nil
}

// edits reads the edit history of the messages that were edited, by
// message; those never edited cost nothing.
func (l *messageLoader) edits(ms []storage.MessageRecord) (map[int64][]storage.MessageEditRecord, error) {
	var edited []int64
	for i := range ms {
		if !ms[i].EditedAt.IsZero() {
			edited = append(edited, ms[i].ID)
		}
	}
	if len(edited) == 0 {
		return nil, nil
	}
	records, err := l.tx.MessageEdits(edited)
	if err != nil {
		return nil, err
	}
	out := map[int64][]storage.MessageEditRecord{}
	for _, e := range records {
		out[e.MessageID] = append(out[e.MessageID], e)
	}
	return out, nil
}

// data builds one message's data from loaded users and channels.
func (l *messageLoader) data(m storage.MessageRecord) *messageData {
	d := &messageData{m: m, realmStr: realmStr(l.realm), reactions: []ReactionView{},
		topicLinks: []TopicLink{}, historyPolicy: l.realm.MessageEditHistoryVisibilityPolicy}
	if sender := l.users[m.SenderID]; sender != nil {
		d.senderName = sender.FullName
		d.senderEmail = apiEmail(sender, l.emailDomain)
		d.gravatarAllowed = d.senderEmail == sender.Email && sender.AvatarSource == AvatarGravatar
		d.avatarURL = gravatarURL(sender.Email, sender.AvatarVersion)
	} else {
		d.senderName, d.senderEmail, d.realmStr = NotificationBotName, NotificationBotEmail, "zulipinternal"
		d.avatarURL = gravatarURL(NotificationBotEmail, 1)
	}
	if m.RecipientType == RecipientChannel {
		d.channelName = l.channels[m.ChannelID].Name
		d.topicLinks = topicLinks(m.Topic, l.linkifiers)
		return d
	}
	for _, id := range m.DirectUserIDs {
		u := l.users[id]
		if u == nil {
			continue
		}
		d.direct = append(d.direct, DirectRecipient{ID: u.ID, Email: apiEmail(u, l.emailDomain), FullName: u.FullName})
	}
	if len(d.direct) == 2 {
		// A one-to-one conversation lists its two users by address.
		slices.SortFunc(d.direct, func(a, b DirectRecipient) int { return strings.Compare(a.Email, b.Email) })
	}
	return d
}

// editHistory is a message object's edit_history, newest first, as the
// organization's policy shows it (nil when it shows nothing), and the times
// of its last content edit and last move (nil when none), which every
// policy shows.
func editHistory(edits []storage.MessageEditRecord, policy EditHistoryPolicy) (out []EditHistoryEntry, lastEdit, lastMove *int64) {
	for i := len(edits) - 1; i >= 0; i-- {
		e := &edits[i]
		ts := e.Time.Unix()
		moved := e.PrevTopic != nil || e.PrevChannelID != 0
		if e.PrevContent != nil && lastEdit == nil {
			lastEdit = &ts
		}
		if moved && lastMove == nil {
			lastMove = &ts
		}
		if policy == EditHistoryNone || (policy == EditHistoryMoves && !moved) {
			continue
		}
		entry := EditHistoryEntry{UserID: e.UserID, Timestamp: ts, PrevTopic: e.PrevTopic, Topic: e.Topic}
		if policy != EditHistoryMoves {
			entry.PrevContent, entry.PrevRenderedContent = e.PrevContent, e.PrevRenderedContent
		}
		if e.PrevChannelID != 0 {
			prev, now := e.PrevChannelID, e.ChannelID
			entry.PrevStream, entry.Stream = &prev, &now
		}
		out = append(out, entry)
	}
	return out, lastEdit, lastMove
}

// realmStr is the organization's subdomain as message objects name it: the
// first label of a host name with at least three labels, else "".
func realmStr(r Realm) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if net.ParseIP(host) != nil || strings.Count(host, ".") < 2 {
		return ""
	}
	return host[:strings.IndexByte(host, '.')]
}

// recipientID is the message's recipient_id. The service has no recipient
// table, so the ID is derived: 4k+2 for channel k; 4k+1 for the personal
// recipient of user k, which a one-to-one conversation carries for the
// other participant (the sender, for incoming messages) and a conversation
// with oneself for the reader; 4h+3 for a group conversation whose sorted
// user IDs hash to h.
func recipientID(m *storage.MessageRecord, reader int64) int64 {
	switch {
	case m.RecipientType == RecipientChannel:
		return 4*m.ChannelID + 2
	case len(m.DirectUserIDs) <= 2:
		// The personal recipient of the other participant as the reader
		// sees it: incoming one-to-one messages carry the sender's.
		other := reader
		for _, id := range m.DirectUserIDs {
			if id != reader {
				other = id
			}
		}
		if m.SenderID != reader && m.SenderID != NotificationBotID {
			other = m.SenderID
		}
		return 4*other + 1
	}
	h := fnv.New64a()
	for _, id := range m.DirectUserIDs {
		h.Write(strconv.AppendInt(nil, id, 10))
		h.Write([]byte{','})
	}
	return 4*int64(h.Sum64()>>24) + 3
}

// view makes the message object for a reader.
func (d *messageData) view(reader int64, f MessageFormat) MessageView {
	m := &d.m
	v := MessageView{
		ID: m.ID, SenderID: m.SenderID, SenderFullName: d.senderName, SenderEmail: d.senderEmail,
		SenderRealmStr: d.realmStr, ContentType: "text/x-markdown", Content: m.Content,
		RecipientID: recipientID(m, reader), Timestamp: m.DateSent.Unix(), Client: m.Client,
		TopicLinks: d.topicLinks, IsMeMessage: isMeMessage(m.Content), Reactions: d.reactions,
		Submessages: []any{},
	}
	if f.ApplyMarkdown {
		v.Content, v.ContentType = m.RenderedContent, "text/html"
	}
	if !(f.ClientGravatar && d.gravatarAllowed) {
		url := d.avatarURL
		v.AvatarURL = &url
	}
	if len(d.edits) > 0 {
		v.EditHistory, v.LastEditTimestamp, v.LastMovedTimestamp = editHistory(d.edits, d.historyPolicy)
	} else if !m.EditedAt.IsZero() {
		// Edited before edit history was kept.
		ts := m.EditedAt.Unix()
		v.LastEditTimestamp = &ts
	}
	if m.RecipientType == RecipientChannel {
		v.Type, v.DisplayRecipient, v.Subject = "stream", d.channelName, m.Topic
		id := m.ChannelID
		v.StreamID = &id
		if v.Subject == "" && !f.AllowEmptyTopicName {
			v.Subject = EmptyTopicDisplayName
		}
	} else {
		v.Type = "private"
		list := d.direct
		if list == nil {
			list = []DirectRecipient{}
		}
		v.DisplayRecipient = list
	}
	return v
}

// isMeMessage reports whether content is a /me message.
func isMeMessage(content string) bool {
	return strings.HasPrefix(content, "/me ") && !strings.Contains(content, "\n")
}

// encodeJSON encodes v without HTML escaping.
func encodeJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // message values always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
