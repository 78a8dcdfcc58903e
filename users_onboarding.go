package chat

import (
	"errors"
	"slices"
	"time"

	"github.com/teamchat/chat/storage"
)

// The reference's limits on a new user's history: the newest messages of
// their default channels, at most onboardingMessages sent within
// onboardingRecent, of which the newest onboardingUnread are unread.
const (
	onboardingMessages = 1000
	onboardingUnread   = 20
	onboardingRecent   = 12 * 7 * 24 * time.Hour
)

// setUpNewHuman does for a human user just created what the reference
// does for every user it creates: it subscribes them to the
// organization's default channels (as is_default_stream promises), with
// the peer_add events, gives them those channels' recent
// history (newUserHistory), and announces them in the signup
// announcements channel (announceSignup). Bots get none of it.
func (s *Service) setUpNewHuman(tx storage.Tx, emit func(Event), realm Realm, u *storage.UserRecord) error {
	if u.IsBot() {
		return nil
	}
	if err := s.subscribeToDefaults(tx, emit, realm, u); err != nil {
		return err
	}
	return s.announceSignup(tx, emit, realm, u)
}

// announceSignup has the notification bot say, in the topic "signups" of
// the organization's signup announcements channel when it has one that is
// not archived, that the user joined, in the reference's words.
func (s *Service) announceSignup(tx storage.Tx, emit func(Event), realm Realm, u *storage.UserRecord) error {
	if realm.SignupAnnouncementsStreamID == 0 {
		return nil
	}
	c, err := tx.Channel(realm.SignupAnnouncementsStreamID)
	if errors.Is(err, storage.ErrNotFound) || err == nil && c.IsArchived {
		return nil
	}
	if err != nil {
		return err
	}
	bot := &botMessages{realmID: realm.ID, now: s.now()}
	bot.toChannel(&c, "signups", mention(u, true)+" joined this organization.")
	return s.sendBotMessages(tx, emit, bot, nil, nil)
}

// subscribeToDefaults subscribes a new user to the default channels, tells
// those who see each channel (peer_add) and gives the user the channels'
// recent history. The subscription add event the reference also sends
// would reach nobody: a user created in this transaction has no event
// queue. A default channel is public, seen by every user but the guests
// not in it, so peer_add goes to the whole organization but those guests
// (Event.ExceptUserIDs): listing its users, or reading the channel's
// subscribers, made a creation take 11 to 54 ms at 10 000 users.
func (s *Service) subscribeToDefaults(tx storage.Tx, emit func(Event), realm Realm, u *storage.UserRecord) error {
	channels, err := tx.Channels(realm.ID)
	if err != nil {
		return err
	}
	var defaults []*storage.Channel
	for i := range channels {
		if c := &channels[i]; c.IsDefault && !c.IsArchived {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	used := map[string]bool{}
	newSubs := make([]storage.Subscription, len(defaults))
	for i, c := range defaults {
		newSubs[i] = storage.Subscription{UserID: u.ID, ChannelID: c.ID, Color: pickColor(used, c.ID)}
	}
	if err = tx.CreateSubscriptions(newSubs); err != nil {
		return err
	}
	all, err := storage.UsersByRole(tx, realm.ID, RoleGuest)
	if err != nil {
		return err
	}
	var guests []storage.UserRecord
	var ids []int64
	for _, g := range all {
		if g.IsActive {
			guests = append(guests, g)
			ids = append(ids, g.ID)
		}
	}
	subs, err := tx.SubscriptionsOfUsers(ids)
	if err != nil {
		return err
	}
	in := map[[2]int64]bool{}
	for _, sub := range subs {
		in[[2]int64{sub.UserID, sub.ChannelID}] = true
	}
	for _, c := range defaults {
		if c.InviteOnly {
			// Never a default channel (ErrDefaultChannelPrivate); were
			// one, its subscribers and administrators would need telling.
			continue
		}
		except := []int64{u.ID}
		for i := range guests {
			if g := &guests[i]; !c.IsWebPublic && !in[[2]int64{g.ID, c.ID}] {
				except = append(except, g.ID)
			}
		}
		slices.Sort(except)
		emit(Event{RealmID: realm.ID, AllUsers: true, ExceptUserIDs: except, Payload: map[string]any{
			"type": "subscription", "op": "peer_add", "stream_ids": []int64{c.ID}, "user_ids": []int64{u.ID}}})
	}
	return s.newUserHistory(tx, realm, u, defaults)
}

// newUserHistory gives a new user rows for the recent messages of the
// channels whose history is open to subscribers, as the reference does,
// so that their feed is not empty (zulip-terminal does not start on an
// empty one): the newest onboardingMessages sent within onboardingRecent,
// read but for the newest onboardingUnread.
func (s *Service) newUserHistory(tx storage.Tx, realm Realm, u *storage.UserRecord, channels []*storage.Channel) error {
	cutoff := s.now().Add(-onboardingRecent)
	var ids []int64
	for _, c := range channels {
		if !c.HistoryPublicToSubscribers {
			continue
		}
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: realm.ID, UserID: u.ID, ChannelHistory: true, ChannelID: c.ID,
			Descending: true, Limit: onboardingMessages, WithoutContent: true})
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.Message.DateSent.After(cutoff) {
				ids = append(ids, r.Message.ID)
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	ids = ids[max(0, len(ids)-onboardingMessages):]
	rows := make([]storage.UserMessage, len(ids))
	for i, id := range ids {
		rows[i] = storage.UserMessage{UserID: u.ID, MessageID: id}
		if i < len(ids)-onboardingUnread {
			rows[i].Flags = storage.FlagRead
		}
	}
	return tx.CreateUserMessages(rows)
}
