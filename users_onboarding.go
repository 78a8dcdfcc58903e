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
// the subscription and peer_add events, gives them those channels' recent
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

// subscribeToDefaults subscribes a new user to the default channels that
// are not archived and gives them their recent history.
func (s *Service) subscribeToDefaults(tx storage.Tx, emit func(Event), realm Realm, u *storage.UserRecord) error {
	all, err := tx.Channels(realm.ID)
	if err != nil {
		return err
	}
	var targets []*storage.Channel
	var ids []int64
	for i := range all {
		if c := &all[i]; c.IsDefault && !c.IsArchived {
			targets = append(targets, c)
			ids = append(ids, c.ID)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	current, err := tx.ChannelSubscriptions(ids)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	added := make(map[int64][]int64, len(targets))
	newSubs := make([]storage.Subscription, len(targets))
	for i, c := range targets {
		newSubs[i] = storage.Subscription{UserID: u.ID, ChannelID: c.ID, Color: pickColor(used, c.ID)}
		added[c.ID] = []int64{u.ID}
	}
	if err := tx.CreateSubscriptions(newSubs); err != nil {
		return err
	}
	g, err := loadGroups(tx, realm.ID)
	if err != nil {
		return err
	}
	if err := s.subscribeEvents(tx, emit, realm, g, nil, targets, subscriberIDs(current), added, newSubs); err != nil {
		return err
	}
	return s.newUserHistory(tx, realm, u, targets)
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
