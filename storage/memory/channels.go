package memory

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/teamchat/chat/storage"
)

// channelState holds user groups, channels, subscriptions, folders, user
// topics and messages.
type channelState struct {
	lastGroupID, lastChannelID, lastFolderID, lastMessageID int64

	groups      map[int64]storage.UserGroup
	channels    map[int64]storage.Channel
	channelName map[nameKey]int64
	// subs is keyed by user, then channel.
	subs map[int64]map[int64]storage.Subscription
	// channelSubs is keyed by channel, then user.
	channelSubs map[int64]map[int64]bool
	folders     map[int64]storage.ChannelFolder
	userTopics  map[topicKey]storage.UserTopic
	messages    map[int64]storage.MessageRecord
	// channelMessages lists each channel's message IDs in increasing order.
	channelMessages map[int64][]int64
	// senderMessages lists each sender's message IDs in increasing order,
	// and directMessages each direct conversation's, for the narrows by
	// sender and conversation.
	senderMessages map[senderKey][]int64
	directMessages map[directKey][]int64
}

// senderKey names a sender in a realm: the notification bot sends in
// every realm.
type senderKey struct{ realmID, senderID int64 }

// directKey names a direct conversation: its sorted participants, as text.
type directKey struct {
	realmID int64
	users   string
}

func newDirectKey(realmID int64, users []int64) directKey {
	var b []byte
	for _, id := range users {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ',')
	}
	return directKey{realmID, string(b)}
}

type nameKey struct {
	realmID int64
	key     string
}

type topicKey struct {
	userID, channelID int64
	key               string
}

func newChannelState() channelState {
	return channelState{
		groups:          map[int64]storage.UserGroup{},
		channels:        map[int64]storage.Channel{},
		channelName:     map[nameKey]int64{},
		subs:            map[int64]map[int64]storage.Subscription{},
		channelSubs:     map[int64]map[int64]bool{},
		folders:         map[int64]storage.ChannelFolder{},
		userTopics:      map[topicKey]storage.UserTopic{},
		messages:        map[int64]storage.MessageRecord{},
		channelMessages: map[int64][]int64{},
		senderMessages:  map[senderKey][]int64{},
		directMessages:  map[directKey][]int64{},
	}
}

func cloneGroup(g storage.UserGroup) storage.UserGroup {
	g.Members = slices.Clone(g.Members)
	g.Subgroups = slices.Clone(g.Subgroups)
	g.Settings = g.Settings.Clone()
	return g
}

// Groups.

func (t *tx) CreateUserGroups(gs []*storage.UserGroup) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	seen := map[nameKey]bool{}
	for _, g := range gs {
		k := nameKey{g.RealmID, g.Name}
		if seen[k] {
			return storage.ErrExists
		}
		seen[k] = true
		for _, old := range c.groups {
			if old.RealmID == g.RealmID && old.Name == g.Name {
				return storage.ErrExists
			}
		}
	}
	for _, g := range gs {
		g.ID = nextID(t, &c.lastGroupID)
		setKey(t, c.groups, g.ID, cloneGroup(*g))
	}
	return nil
}

func (t *tx) UpdateUserGroup(g storage.UserGroup) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	old, ok := c.groups[g.ID]
	if !ok {
		return storage.ErrNotFound
	}
	for _, other := range c.groups {
		if other.ID != g.ID && other.RealmID == old.RealmID && other.Name == g.Name {
			return storage.ErrExists
		}
	}
	g.RealmID, g.IsSystem, g.CreatorID, g.DateCreated = old.RealmID, old.IsSystem, old.CreatorID, old.DateCreated
	setKey(t, c.groups, g.ID, cloneGroup(g))
	return nil
}

func (t *tx) UserGroups(realmID int64) ([]storage.UserGroup, error) {
	out := []storage.UserGroup{}
	for _, g := range t.s.c.groups {
		if g.RealmID == realmID {
			out = append(out, cloneGroup(g))
		}
	}
	slices.SortFunc(out, func(a, b storage.UserGroup) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// Channels.

func (t *tx) CreateChannels(cs []*storage.Channel) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	seen := map[nameKey]bool{}
	for _, ch := range cs {
		k := nameKey{ch.RealmID, storage.ChannelNameKey(ch.Name)}
		if _, ok := c.channelName[k]; ok || seen[k] {
			return storage.ErrExists
		}
		seen[k] = true
	}
	for _, ch := range cs {
		ch.ID = nextID(t, &c.lastChannelID)
		t.putChannel(nil, ch)
	}
	return nil
}

func (t *tx) putChannel(old, ch *storage.Channel) {
	c := &t.s.c
	set := func(from, to *storage.Channel) {
		if from != nil {
			delete(c.channelName, nameKey{from.RealmID, storage.ChannelNameKey(from.Name)})
			delete(c.channels, from.ID)
		}
		if to != nil {
			c.channels[to.ID] = to.Clone()
			c.channelName[nameKey{to.RealmID, storage.ChannelNameKey(to.Name)}] = to.ID
		}
	}
	ch2 := ch.Clone()
	set(old, &ch2)
	t.onUndo(func() { set(&ch2, old) })
}

func (t *tx) Channel(id int64) (storage.Channel, error) {
	ch, ok := t.s.c.channels[id]
	if !ok {
		return storage.Channel{}, storage.ErrNotFound
	}
	return ch.Clone(), nil
}

func (t *tx) ChannelsByName(realmID int64, keys []string) ([]storage.Channel, error) {
	out := []storage.Channel{}
	for _, k := range keys {
		if id, ok := t.s.c.channelName[nameKey{realmID, k}]; ok && !slices.ContainsFunc(out, func(c storage.Channel) bool { return c.ID == id }) {
			out = append(out, t.s.c.channels[id].Clone())
		}
	}
	slices.SortFunc(out, func(a, b storage.Channel) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (t *tx) Channels(realmID int64) ([]storage.Channel, error) {
	out := []storage.Channel{}
	for _, ch := range t.s.c.channels {
		if ch.RealmID == realmID {
			out = append(out, ch.Clone())
		}
	}
	slices.SortFunc(out, func(a, b storage.Channel) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (t *tx) UpdateChannel(ch storage.Channel) error {
	if err := t.writable(); err != nil {
		return err
	}
	old, ok := t.s.c.channels[ch.ID]
	if !ok {
		return storage.ErrNotFound
	}
	if id, ok := t.s.c.channelName[nameKey{ch.RealmID, storage.ChannelNameKey(ch.Name)}]; ok && id != ch.ID {
		return storage.ErrExists
	}
	t.putChannel(&old, &ch)
	return nil
}

// Subscriptions.

func cloneSub(s storage.Subscription) storage.Subscription {
	for _, p := range []**bool{&s.DesktopNotifications, &s.AudibleNotifications, &s.PushNotifications,
		&s.EmailNotifications, &s.WildcardMentionsNotify} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return s
}

// putSub stores (or, with del, removes) a subscription and logs the undo.
func (t *tx) putSub(s storage.Subscription, del bool) {
	c := &t.s.c
	old, had := c.subs[s.UserID][s.ChannelID]
	apply := func(s storage.Subscription, present bool) {
		if present {
			if c.subs[s.UserID] == nil {
				c.subs[s.UserID] = map[int64]storage.Subscription{}
			}
			if c.channelSubs[s.ChannelID] == nil {
				c.channelSubs[s.ChannelID] = map[int64]bool{}
			}
			c.subs[s.UserID][s.ChannelID] = s
			c.channelSubs[s.ChannelID][s.UserID] = true
		} else {
			delete(c.subs[s.UserID], s.ChannelID)
			delete(c.channelSubs[s.ChannelID], s.UserID)
		}
	}
	apply(cloneSub(s), !del)
	t.onUndo(func() {
		if had {
			apply(old, true)
		} else {
			apply(s, false)
		}
	})
}

func (t *tx) CreateSubscriptions(subs []storage.Subscription) error {
	if err := t.writable(); err != nil {
		return err
	}
	seen := map[[2]int64]bool{}
	for _, s := range subs {
		k := [2]int64{s.UserID, s.ChannelID}
		if _, ok := t.s.c.subs[s.UserID][s.ChannelID]; ok || seen[k] {
			return storage.ErrExists
		}
		seen[k] = true
	}
	for _, s := range subs {
		t.putSub(s, false)
	}
	return nil
}

func (t *tx) SubscriptionsOfUsers(userIDs []int64) ([]storage.Subscription, error) {
	ids := slices.Clone(userIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := []storage.Subscription{}
	for _, u := range ids {
		start := len(out)
		for _, s := range t.s.c.subs[u] {
			out = append(out, cloneSub(s))
		}
		slices.SortFunc(out[start:], func(a, b storage.Subscription) int { return cmp.Compare(a.ChannelID, b.ChannelID) })
	}
	return out, nil
}

func (t *tx) SubscriptionColors(userIDs []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	for _, u := range userIDs {
		if _, done := out[u]; done || len(t.s.c.subs[u]) == 0 {
			continue
		}
		var colors []string
		for _, s := range t.s.c.subs[u] {
			colors = append(colors, s.Color)
		}
		slices.Sort(colors)
		out[u] = slices.Compact(colors)
	}
	return out, nil
}

func (t *tx) SubscriberCounts(channelIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	for _, ch := range channelIDs {
		if n := len(t.s.c.channelSubs[ch]); n > 0 {
			out[ch] = n
		}
	}
	return out, nil
}

func (t *tx) ChannelSubscriptions(channelIDs []int64) ([]storage.Subscription, error) {
	ids := slices.Clone(channelIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := []storage.Subscription{}
	for _, ch := range ids {
		users := make([]int64, 0, len(t.s.c.channelSubs[ch]))
		for u := range t.s.c.channelSubs[ch] {
			users = append(users, u)
		}
		slices.Sort(users)
		for _, u := range users {
			out = append(out, cloneSub(t.s.c.subs[u][ch]))
		}
	}
	return out, nil
}

func (t *tx) UpdateSubscription(s storage.Subscription) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.c.subs[s.UserID][s.ChannelID]; !ok {
		return storage.ErrNotFound
	}
	t.putSub(s, false)
	return nil
}

func (t *tx) DeleteSubscription(userID, channelID int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	s, ok := t.s.c.subs[userID][channelID]
	if !ok {
		return storage.ErrNotFound
	}
	t.putSub(s, true)
	return nil
}

// Folders.

func (t *tx) CreateChannelFolder(f *storage.ChannelFolder) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	f.ID = nextID(t, &c.lastFolderID)
	setKey(t, c.folders, f.ID, *f)
	return nil
}

func (t *tx) ChannelFolder(id int64) (storage.ChannelFolder, error) {
	return lookup(t.s.c.folders, id)
}

func (t *tx) ChannelFolders(realmID int64) ([]storage.ChannelFolder, error) {
	return filtered(t.s.c.folders, func(f *storage.ChannelFolder) bool { return f.RealmID == realmID },
		func(a, b *storage.ChannelFolder) int {
			return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.ID, b.ID))
		}), nil
}

func (t *tx) UpdateChannelFolder(f storage.ChannelFolder) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	if _, ok := c.folders[f.ID]; !ok {
		return storage.ErrNotFound
	}
	setKey(t, c.folders, f.ID, f)
	return nil
}

// User topics.

func (t *tx) SetUserTopic(ut storage.UserTopic) error {
	if err := t.writable(); err != nil {
		return err
	}
	c := &t.s.c
	k := topicKey{ut.UserID, ut.ChannelID, storage.TopicKey(ut.Topic)}
	if ut.VisibilityPolicy == storage.TopicInherit {
		deleteKey(t, c.userTopics, k)
	} else {
		setKey(t, c.userTopics, k, ut)
	}
	return nil
}

func (t *tx) UserTopic(userID, channelID int64, key string) (storage.UserTopic, error) {
	ut, ok := t.s.c.userTopics[topicKey{userID, channelID, key}]
	if !ok {
		return storage.UserTopic{}, storage.ErrNotFound
	}
	return ut, nil
}

func (t *tx) UserTopics(userID int64) ([]storage.UserTopic, error) {
	out := []storage.UserTopic{}
	for k, ut := range t.s.c.userTopics {
		if k.userID == userID {
			out = append(out, ut)
		}
	}
	slices.SortFunc(out, func(a, b storage.UserTopic) int {
		return cmp.Or(cmp.Compare(a.ChannelID, b.ChannelID), cmp.Compare(storage.TopicKey(a.Topic), storage.TopicKey(b.Topic)))
	})
	return out, nil
}

func (t *tx) DeleteTopicUserTopics(channelID int64, key string) ([]storage.UserTopic, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	c := &t.s.c
	out := []storage.UserTopic{}
	for k, ut := range c.userTopics {
		if k.channelID == channelID && k.key == key {
			out = append(out, ut)
		}
	}
	slices.SortFunc(out, func(a, b storage.UserTopic) int { return cmp.Compare(a.UserID, b.UserID) })
	for _, ut := range out {
		deleteKey(t, c.userTopics, topicKey{ut.UserID, channelID, key})
	}
	return out, nil
}
