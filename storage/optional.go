package storage

import (
	"cmp"
	"errors"
	"slices"
	"time"
)

// Optional queries. Each can be derived from the required methods of Tx,
// and package chat derives it when a backend's Tx lacks it; a backend
// implements one where an index answers it faster than the derivation.
// The conformance suite checks every one a backend implements against its
// derivation.

// UsersByRoleTx finds users by role.
type UsersByRoleTx interface {
	// UsersByRole returns the realm's users with the role, active or not,
	// ordered by ID.
	UsersByRole(realmID int64, role Role) ([]UserRecord, error)
}

// UserAndRealmTx reads a user together with the user's realm: every
// operation starts so, to check who acts, and one statement instead of two
// is a round trip less on a database server.
type UserAndRealmTx interface {
	// UserAndRealm returns the user and the user's realm, or ErrNotFound
	// for an unknown user.
	UserAndRealm(userID int64) (UserRecord, Realm, error)
}

// BotsOwnedByTx finds a user's bots.
type BotsOwnedByTx interface {
	// BotsOwnedBy returns the bots of the owner's realm whose BotOwnerID is
	// ownerID, ordered by ID; none for an unknown owner or ownerID 0.
	BotsOwnedBy(ownerID int64) ([]UserRecord, error)
}

// ChannelsByNameTx finds channels by name.
type ChannelsByNameTx interface {
	// ChannelsByName returns the realm's channels whose ChannelNameKey is
	// one of keys (which are already keys), ordered by ID.
	ChannelsByName(realmID int64, keys []string) ([]Channel, error)
}

// SubscriptionColorsTx reads the colours users already use.
type SubscriptionColorsTx interface {
	// SubscriptionColors returns the distinct colours of the users'
	// subscriptions, keyed by user ID, each user's sorted; users without
	// subscriptions have no entry.
	SubscriptionColors(userIDs []int64) (map[int64][]string, error)
}

// RealmDomainByNameTx finds one allowed domain of a realm.
type RealmDomainByNameTx interface {
	// RealmDomain returns the realm's entry for domain (compared exactly),
	// or ErrNotFound.
	RealmDomain(realmID int64, domain string) (RealmDomain, error)
}

// UserMessageTx finds one user's row of a message.
type UserMessageTx interface {
	// UserMessage returns the user's row for the message, or ErrNotFound.
	UserMessage(userID, messageID int64) (UserMessage, error)
}

// MessageReadersTx finds who has rows of many messages at once.
type MessageReadersTx interface {
	// MessageReaders returns the IDs of the users who have a row for at
	// least one of the messages, in increasing order.
	MessageReaders(messageIDs []int64) ([]int64, error)
}

// MessageReaders answers MessageReadersTx's query in tx: with tx's own
// method when it has one, else from MessageRecipients of each message.
func MessageReaders(tx Tx, messageIDs []int64) ([]int64, error) {
	if o, ok := tx.(MessageReadersTx); ok {
		return o.MessageReaders(messageIDs)
	}
	seen := map[int64]bool{}
	out := []int64{}
	for _, id := range messageIDs {
		rows, err := tx.MessageRecipients(id)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if !seen[r.UserID] {
				seen[r.UserID] = true
				out = append(out, r.UserID)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// SubscriberCountsTx counts channels' subscriptions without reading them.
type SubscriberCountsTx interface {
	// SubscriberCounts returns the number of subscriptions of each of the
	// channels that has any, by channel ID.
	SubscriberCounts(channelIDs []int64) (map[int64]int, error)
}

// SubscriberCounts answers SubscriberCountsTx's query in tx: with tx's
// own method when it has one, else from ChannelSubscriptions.
func SubscriberCounts(tx Tx, channelIDs []int64) (map[int64]int, error) {
	if o, ok := tx.(SubscriberCountsTx); ok {
		return o.SubscriberCounts(channelIDs)
	}
	subs, err := tx.ChannelSubscriptions(channelIDs)
	if err != nil {
		return nil, err
	}
	out := map[int64]int{}
	for _, s := range subs {
		out[s.ChannelID]++
	}
	return out, nil
}

// ActiveSubscribersTx finds who a channel message reaches without reading
// the subscriptions themselves: a big channel's send needs its
// subscribers' IDs only, and reading a thousand whole subscriptions and
// then which of their users are active costs several times the message's
// own write.
type ActiveSubscribersTx interface {
	// ActiveSubscribers returns the IDs of the active users of the realm
	// subscribed to each of the channels, keyed by channel ID, each list in
	// increasing order; channels without such subscribers have no entry.
	ActiveSubscribers(realmID int64, channelIDs []int64) (map[int64][]int64, error)
}

// ActiveSubscribers answers ActiveSubscribersTx's query in tx: with tx's
// own method when it has one, else from ChannelSubscriptions and
// ActiveUserIDs.
func ActiveSubscribers(tx Tx, realmID int64, channelIDs []int64) (map[int64][]int64, error) {
	if o, ok := tx.(ActiveSubscribersTx); ok {
		return o.ActiveSubscribers(realmID, channelIDs)
	}
	out := map[int64][]int64{}
	subs, err := tx.ChannelSubscriptions(channelIDs)
	if err != nil || len(subs) == 0 {
		return out, err
	}
	ids := make([]int64, 0, len(subs))
	for _, s := range subs {
		ids = append(ids, s.UserID)
	}
	slices.Sort(ids)
	active, err := tx.ActiveUserIDs(realmID, slices.Compact(ids))
	if err != nil {
		return nil, err
	}
	// In ChannelSubscriptions' order (channel, then user), so each list
	// comes out sorted.
	for _, s := range subs {
		if _, ok := slices.BinarySearch(active, s.UserID); ok {
			out[s.ChannelID] = append(out[s.ChannelID], s.UserID)
		}
	}
	return out, nil
}

// ReadMarkerTx marks a user's unread messages read in bulk.
type ReadMarkerTx interface {
	// MarkRead sets FlagRead on at most limit of the user's unread rows,
	// lowest message IDs first, and returns their message IDs in
	// increasing order.
	MarkRead(userID int64, limit int) ([]int64, error)
}

// MarkRead does what ReadMarkerTx's method does in tx: with tx's own
// method when it has one, else with FindMessages (of the user's realm)
// and UpdateUserMessageFlags.
func MarkRead(tx Tx, realmID, userID int64, limit int) ([]int64, error) {
	if o, ok := tx.(ReadMarkerTx); ok {
		return o.MarkRead(userID, limit)
	}
	rows, err := tx.FindMessages(MessageFilter{RealmID: realmID, UserID: userID, Unread: true, Limit: limit})
	if err != nil || len(rows) == 0 {
		return []int64{}, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.Message.ID
	}
	return tx.UpdateUserMessageFlags(userID, ids, FlagRead, 0)
}

// UnreadMessage is what the unread state shows of one of a user's unread
// messages: its conversation and the user's flags, without its content.
type UnreadMessage struct {
	ID            int64
	Flags         MessageFlags
	RecipientType int
	// ChannelID and Topic are those of a channel message, zero for a
	// direct message.
	ChannelID int64
	Topic     string
	// DirectUserIDs are a direct message's participants, nil for a
	// channel message.
	DirectUserIDs []int64
}

// UnreadMessagesTx reads a user's unread messages without their content.
type UnreadMessagesTx interface {
	// UnreadMessages returns the realm's messages for which the user has a
	// row without FlagRead, highest IDs first, at most limit of them (no
	// bound when limit is zero).
	UnreadMessages(realmID, userID int64, limit int) ([]UnreadMessage, error)
}

// UnreadMessages answers UnreadMessagesTx's query in tx: with tx's own
// method when it has one, else with FindMessages.
func UnreadMessages(tx Tx, realmID, userID int64, limit int) ([]UnreadMessage, error) {
	if o, ok := tx.(UnreadMessagesTx); ok {
		return o.UnreadMessages(realmID, userID, limit)
	}
	rows, err := tx.FindMessages(MessageFilter{RealmID: realmID, UserID: userID, Unread: true, Descending: true, Limit: limit,
		WithoutContent: true})
	if err != nil {
		return nil, err
	}
	out := make([]UnreadMessage, len(rows))
	for i, r := range rows {
		m := &r.Message
		out[i] = UnreadMessage{ID: m.ID, Flags: r.Flags, RecipientType: m.RecipientType}
		if m.RecipientType == RecipientChannel {
			out[i].ChannelID, out[i].Topic = m.ChannelID, m.Topic
		} else {
			out[i].DirectUserIDs = m.DirectUserIDs
		}
	}
	return out, nil
}

// MessageMoverTx moves many channel messages at once.
type MessageMoverTx interface {
	// MoveMessages sets the channel, topic and EditedAt of the channel
	// messages with the IDs, as UpdateMessage would one at a time;
	// unknown IDs and direct messages are skipped.
	MoveMessages(ids []int64, channelID int64, topic string, editedAt time.Time) error
}

// MoveMessages does what MessageMoverTx's method does in tx: with tx's
// own method when it has one, else with Message and UpdateMessage.
func MoveMessages(tx Tx, ids []int64, channelID int64, topic string, editedAt time.Time) error {
	if o, ok := tx.(MessageMoverTx); ok {
		return o.MoveMessages(ids, channelID, topic, editedAt)
	}
	for _, id := range ids {
		m, err := tx.Message(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if m.RecipientType != RecipientChannel {
			continue
		}
		m.ChannelID, m.Topic, m.EditedAt = channelID, topic, editedAt
		if err := tx.UpdateMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// UsersByRole answers UsersByRoleTx's query in tx: with tx's own method
// when it has one, else from Users.
func UsersByRole(tx Tx, realmID int64, role Role) ([]UserRecord, error) {
	if o, ok := tx.(UsersByRoleTx); ok {
		return o.UsersByRole(realmID, role)
	}
	all, err := tx.Users(realmID, nil)
	return slices.DeleteFunc(all, func(u UserRecord) bool { return u.Role != role }), err
}

// UserAndRealm answers UserAndRealmTx's query in tx: with tx's own method
// when it has one, else with User and Realm.
func UserAndRealm(tx Tx, userID int64) (UserRecord, Realm, error) {
	if o, ok := tx.(UserAndRealmTx); ok {
		return o.UserAndRealm(userID)
	}
	return UserThenRealm(tx, userID)
}

// UserThenRealm is UserAndRealm's derivation, with User and then Realm,
// for backends whose own method falls back to it.
func UserThenRealm(tx Tx, userID int64) (UserRecord, Realm, error) {
	u, err := tx.User(userID)
	if err != nil {
		return UserRecord{}, Realm{}, err
	}
	r, err := tx.Realm(u.RealmID)
	if err != nil {
		return UserRecord{}, Realm{}, err
	}
	return u, r, nil
}

// BotsOwnedBy answers BotsOwnedByTx's query in tx: with tx's own method
// when it has one, else from User and Users.
func BotsOwnedBy(tx Tx, ownerID int64) ([]UserRecord, error) {
	if o, ok := tx.(BotsOwnedByTx); ok {
		return o.BotsOwnedBy(ownerID)
	}
	owner, err := tx.User(ownerID)
	if errors.Is(err, ErrNotFound) || ownerID == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	all, err := tx.Users(owner.RealmID, nil)
	return slices.DeleteFunc(all, func(u UserRecord) bool { return !u.IsBot() || u.BotOwnerID != ownerID }), err
}

// ChannelsByName answers ChannelsByNameTx's query in tx: with tx's own
// method when it has one, else from Channels.
func ChannelsByName(tx Tx, realmID int64, keys []string) ([]Channel, error) {
	if o, ok := tx.(ChannelsByNameTx); ok {
		return o.ChannelsByName(realmID, keys)
	}
	all, err := tx.Channels(realmID)
	return slices.DeleteFunc(all, func(c Channel) bool {
		return !slices.Contains(keys, ChannelNameKey(c.Name))
	}), err
}

// SubscriptionColors answers SubscriptionColorsTx's query in tx: with tx's
// own method when it has one, else from SubscriptionsOfUsers.
func SubscriptionColors(tx Tx, userIDs []int64) (map[int64][]string, error) {
	if o, ok := tx.(SubscriptionColorsTx); ok {
		return o.SubscriptionColors(userIDs)
	}
	subs, err := tx.SubscriptionsOfUsers(userIDs)
	if err != nil {
		return nil, err
	}
	out := map[int64][]string{}
	for _, sub := range subs {
		if !slices.Contains(out[sub.UserID], sub.Color) {
			out[sub.UserID] = append(out[sub.UserID], sub.Color)
		}
	}
	for _, colors := range out {
		slices.Sort(colors)
	}
	return out, nil
}

// RealmDomainByName answers RealmDomainByNameTx's query in tx: with tx's own
// method when it has one, else from RealmDomains.
func RealmDomainByName(tx Tx, realmID int64, domain string) (RealmDomain, error) {
	if o, ok := tx.(RealmDomainByNameTx); ok {
		return o.RealmDomain(realmID, domain)
	}
	all, err := tx.RealmDomains(realmID)
	if err != nil {
		return RealmDomain{}, err
	}
	for _, d := range all {
		if d.Domain == domain {
			return d, nil
		}
	}
	return RealmDomain{}, ErrNotFound
}

// UserMessageOf answers UserMessageTx's query in tx: with tx's own method
// when it has one, else from MessageRecipients.
func UserMessageOf(tx Tx, userID, messageID int64) (UserMessage, error) {
	if o, ok := tx.(UserMessageTx); ok {
		return o.UserMessage(userID, messageID)
	}
	rows, err := tx.MessageRecipients(messageID)
	if err != nil {
		return UserMessage{}, err
	}
	if i, found := slices.BinarySearchFunc(rows, userID, func(r UserMessage, id int64) int {
		return cmp.Compare(r.UserID, id)
	}); found {
		return rows[i], nil
	}
	return UserMessage{}, ErrNotFound
}
