package chat

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Subscribe subscribes the principals (default: the actor) to the named
// channels, creating those that do not exist (matched without regard to
// case), in one transaction: on an error nothing changes. Guests may not
// call it. The notification bot posts a message in every created channel,
// announces them in the new-channel announcements channel when asked, and
// tells users subscribed by someone else to existing channels.
//
// Errors: ErrNotAllowedForGuests; channel name and description errors;
// creation errors (ErrInsufficientPermission, ErrDefaultChannelPrivate,
// ErrWebPublicDisabled, ErrMustBeOwner, ErrInvalidFolderID, invalid group
// settings); "Unable to access channel (name)." when authorization errors
// are fatal; ErrInsufficientPermission for subscribing others without the
// right; ErrNoSuchUser and ErrUserDeactivated for principals.
func (s *Service) Subscribe(ctx context.Context, actor Actor, req SubscribeRequest) (SubscribeResult, error) {
	var out SubscribeResult
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		var err error
		out, err = s.subscribe(tx, emit, actor, &req)
		return err
	})
	return out, err
}

// subscribeRun is one subscribe request being carried out in its
// transaction, phase by phase.
type subscribeRun struct {
	s     *Service
	tx    storage.Tx
	req   *SubscribeRequest
	actor storage.UserRecord
	realm Realm
	g     *groups
	out   SubscribeResult

	// specs are the requested channels, in request order, without
	// duplicates; byKey holds those that exist, by name key.
	specs       []wantedChannel
	existing    []storage.Channel
	existingIDs []int64
	byKey       map[string]*storage.Channel
	// toCreate are the channels to create, in request order.
	toCreate []*storage.Channel
	// actorSubs are the actor's subscriptions; authorized the existing
	// channels the actor may subscribe to.
	actorSubs  map[int64]storage.Subscription
	authorized map[int64]bool
	// users are the users to subscribe.
	users []storage.UserRecord
	// targets are the channels to subscribe to, in request order; created
	// says which of them this request creates.
	targets []*storage.Channel
	created map[int64]bool
	// subscribers are the subscribers of the existing targets before the
	// request; the new subscriptions are also listed by channel and user.
	subscribers  map[int64][]int64
	newSubs      []storage.Subscription
	newByChannel map[int64][]int64
	newByUser    map[int64][]*storage.Channel
}

// wantedChannel is a requested channel: its name, name key and
// description.
type wantedChannel struct {
	name, key, description string
}

func (s *Service) subscribe(tx storage.Tx, emit func(Event), actorRef Actor, req *SubscribeRequest) (SubscribeResult, error) {
	actor, realm, err := s.admit(tx, actorRef, OpSubscribe)
	if err != nil {
		return SubscribeResult{}, err
	}
	r := &subscribeRun{s: s, tx: tx, req: req, actor: actor, realm: realm}
	for _, phase := range []func() error{r.readSpecs, r.planCreation, r.authorize, r.resolveUsers, r.createChannels, r.subscribeUsers} {
		if err := phase(); err != nil {
			return SubscribeResult{}, err
		}
	}
	bot, channelsByID, err := r.botMessages()
	if err != nil {
		return SubscribeResult{}, err
	}
	// The messages' events follow the channel events, so that clients
	// know the channels of the messages they get. The targets'
	// subscribers are known: those read before and the new ones.
	after := make(map[int64][]int64, len(r.targets))
	for _, c := range r.targets {
		ids := append(slices.Clone(r.subscribers[c.ID]), r.newByChannel[c.ID]...)
		slices.Sort(ids)
		after[c.ID] = ids
	}
	var messageEvents []Event
	if err := s.sendBotMessages(tx, func(e Event) { messageEvents = append(messageEvents, e) }, bot, channelsByID, after); err != nil {
		return SubscribeResult{}, err
	}
	if err := s.subscribeEvents(tx, emit, realm, r.g, r.toCreate, r.targets, r.subscribers, r.newByChannel, r.newSubs); err != nil {
		return SubscribeResult{}, err
	}
	for _, e := range messageEvents {
		emit(e)
	}
	return r.out, nil
}

// readSpecs checks the requested names and descriptions and reads the
// channels that exist.
func (r *subscribeRun) readSpecs() error {
	seenKeys := map[string]bool{}
	for i, spec := range r.req.Subscriptions {
		name, err := checkChannelName(spec.Name)
		if err != nil {
			return err
		}
		desc := strings.ReplaceAll(spec.Description, "\n", " ")
		if utf8.RuneCountInString(desc) > MaxChannelDescriptionLength {
			return errorf(`subscriptions[%d]["description"] is too long (limit: %d characters)`, i, MaxChannelDescriptionLength)
		}
		key := storage.ChannelNameKey(name)
		if !seenKeys[key] {
			seenKeys[key] = true
			r.specs = append(r.specs, wantedChannel{name, key, desc})
		}
	}
	keys := make([]string, len(r.specs))
	for i := range r.specs {
		keys[i] = r.specs[i].key
	}
	var err error
	if r.existing, err = storage.ChannelsByName(r.tx, r.realm.ID, keys); err != nil {
		return err
	}
	r.byKey = make(map[string]*storage.Channel, len(r.existing))
	r.existingIDs = make([]int64, len(r.existing))
	for i := range r.existing {
		r.byKey[storage.ChannelNameKey(r.existing[i].Name)] = &r.existing[i]
		r.existingIDs[i] = r.existing[i].ID
	}
	r.g, err = loadGroups(r.tx, r.realm.ID)
	return err
}

// planCreation makes the channels that do not exist yet from the
// request's settings (checked once, for the first of them).
func (r *subscribeRun) planCreation() error {
	var template storage.Channel
	for _, w := range r.specs {
		if r.byKey[w.key] != nil {
			continue
		}
		if r.toCreate == nil {
			var err error
			if template, err = r.s.channelTemplate(r.tx, r.g, &r.actor, r.realm, r.req); err != nil {
				return err
			}
		}
		c := template.Clone()
		c.Name, c.Description = w.name, w.description
		r.toCreate = append(r.toCreate, &c)
	}
	// The descriptions render at once, for the actor's access.
	var texts []string
	for _, c := range r.toCreate {
		texts = append(texts, c.Description)
	}
	cc := &channelContext{actor: r.actor, realm: r.realm, g: r.g, subs: r.actorSubs}
	rendered, err := r.s.renderDescriptions(r.tx, &r.realm, texts, cc)
	if err != nil {
		return err
	}
	for i, c := range r.toCreate {
		c.RenderedDescription = rendered[i]
	}
	return nil
}

// authorize decides which existing channels the actor may subscribe to,
// and whether the actor may subscribe others to them.
func (r *subscribeRun) authorize() error {
	var err error
	if r.actorSubs, err = subscribedSet(r.tx, r.actor.ID); err != nil {
		return err
	}
	fatal := r.req.AuthorizationErrorsFatal == nil || *r.req.AuthorizationErrorsFatal
	if !fatal {
		r.out.Unauthorized = []string{}
	}
	r.authorized = map[int64]bool{}
	for _, w := range r.specs {
		c := r.byKey[w.key]
		if c == nil {
			continue
		}
		_, sub := r.actorSubs[c.ID]
		a := channelAccess{user: &r.actor, g: r.g, subscribed: sub}
		if sub || c.IsWebPublic || (r.actor.Role != RoleGuest && (!c.InviteOnly || a.addSubscribers(c) || a.content(c))) {
			r.authorized[c.ID] = true
			continue
		}
		if fatal {
			return errorf("Unable to access channel (%s).", c.Name)
		}
		r.out.Unauthorized = append(r.out.Unauthorized, c.Name)
	}
	// Subscribing others needs the right to add subscribers.
	p := r.req.Principals
	if p == nil || p.empty() || (len(p.IDs) == 1 && p.IDs[0] == r.actor.ID) {
		return nil
	}
	for _, c := range r.existing {
		if !r.authorized[c.ID] {
			continue
		}
		_, sub := r.actorSubs[c.ID]
		if !(channelAccess{user: &r.actor, g: r.g, subscribed: sub}).addSubscribers(&c) {
			return ErrInsufficientPermission
		}
	}
	return nil
}

// resolveUsers reads the users to subscribe: the principals, or the actor.
func (r *subscribeRun) resolveUsers() error {
	r.users = []storage.UserRecord{r.actor}
	if p := r.req.Principals; !(p == nil || p.empty()) {
		var err error
		r.users, err = resolvePrincipals(r.tx, r.realm.ID, &r.actor, p)
		return err
	}
	return nil
}

// createChannels stores the new channels and lists the targets in request
// order.
func (r *subscribeRun) createChannels() error {
	if len(r.toCreate) > 0 {
		if err := r.tx.CreateChannels(r.toCreate); errors.Is(err, storage.ErrExists) {
			return errorf("Channel name already in use.")
		} else if err != nil {
			return err
		}
	}
	r.targets = make([]*storage.Channel, 0, len(r.specs))
	r.created = make(map[int64]bool, len(r.toCreate))
	ci := 0
	for _, w := range r.specs {
		if c := r.byKey[w.key]; c != nil {
			if r.authorized[c.ID] {
				r.targets = append(r.targets, c)
			}
			continue
		}
		c := r.toCreate[ci]
		ci++
		r.created[c.ID] = true
		r.targets = append(r.targets, c)
	}
	return nil
}

// subscribeUsers stores the subscriptions that do not exist yet, each
// with a colour its user does not use yet, and fills the answer.
func (r *subscribeRun) subscribeUsers() error {
	var current []storage.Subscription
	if len(r.existingIDs) > 0 {
		var err error
		if current, err = r.tx.ChannelSubscriptions(r.existingIDs); err != nil {
			return err
		}
	}
	r.subscribers = subscriberIDs(current)
	userIDs := make([]int64, len(r.users))
	for i := range r.users {
		userIDs[i] = r.users[i].ID
	}
	colors, err := storage.SubscriptionColors(r.tx, userIDs)
	if err != nil {
		return err
	}
	used := make(map[int64]map[string]bool, len(r.users))
	for id, list := range colors {
		used[id] = make(map[string]bool, len(list))
		for _, c := range list {
			used[id][c] = true
		}
	}
	r.out.Subscribed = map[string][]string{}
	r.out.AlreadySubscribed = map[string][]string{}
	r.newByChannel = map[int64][]int64{}
	r.newByUser = map[int64][]*storage.Channel{}
	for ui := range r.users {
		u := &r.users[ui]
		key := strconv.FormatInt(u.ID, 10)
		for _, c := range r.targets {
			if _, found := slices.BinarySearch(r.subscribers[c.ID], u.ID); found {
				r.out.AlreadySubscribed[key] = append(r.out.AlreadySubscribed[key], c.Name)
				continue
			}
			if used[u.ID] == nil {
				used[u.ID] = map[string]bool{}
			}
			r.newSubs = append(r.newSubs, storage.Subscription{UserID: u.ID, ChannelID: c.ID, Color: pickColor(used[u.ID], c.ID)})
			r.out.Subscribed[key] = append(r.out.Subscribed[key], c.Name)
			r.newByChannel[c.ID] = append(r.newByChannel[c.ID], u.ID)
			r.newByUser[u.ID] = append(r.newByUser[u.ID], c)
		}
	}
	if len(r.newSubs) > 0 {
		return r.tx.CreateSubscriptions(r.newSubs)
	}
	return nil
}

// botMessages composes the notification bot's messages of the request:
// one per created channel, the announcement of new channels, and the
// direct messages to users subscribed by someone else. It returns them
// with the channels they go to, by ID.
func (r *subscribeRun) botMessages() (*botMessages, map[int64]*storage.Channel, error) {
	actor := &r.actor
	bot := &botMessages{realmID: r.realm.ID, now: r.s.now()}
	channelsByID := make(map[int64]*storage.Channel, len(r.targets))
	for _, c := range r.targets {
		channelsByID[c.ID] = c
	}
	var createdNames []string
	for _, c := range r.toCreate {
		createdNames = append(createdNames, c.Name)
		desc := c.Description
		if desc == "" {
			desc = "*No description.*"
		}
		bot.toChannel(c, "channel events", "**"+policyName(c)+"** channel created by "+mention(actor, true)+
			". **Description:**\n```` quote\n"+desc+"\n````")
	}
	if r.req.Announce && len(r.toCreate) > 0 && r.realm.NewStreamAnnouncementsStreamID != 0 {
		ann, err := r.tx.Channel(r.realm.NewStreamAnnouncementsStreamID)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, nil, err
		}
		if err == nil {
			var content string
			if len(createdNames) == 1 {
				content = mention(actor, true) + " created a new channel " + channelLink(createdNames[0]) + "."
			} else {
				links := make([]string, len(createdNames))
				for i, n := range createdNames {
					links[i] = channelLink(n)
				}
				content = mention(actor, true) + " created the following channels: " + strings.Join(links, ", ") + "."
			}
			if channelsByID[ann.ID] == nil {
				channelsByID[ann.ID] = &ann
			}
			bot.toChannel(&ann, "new channels", content)
		}
	}
	if r.req.SendNewSubscriptionMessages == nil || *r.req.SendNewSubscriptionMessages {
		sent := len(r.newByUser) <= maxBulkNewSubscriptionMessages
		r.out.NewSubscriptionMessagesSent = &sent
		if sent {
			r.subscribedYouMessages(bot)
		}
	}
	return bot, channelsByID, nil
}

// subscribedYouMessages tells each human user subscribed by the actor to
// existing channels which ones.
func (r *subscribeRun) subscribedYouMessages(bot *botMessages) {
	for ui := range r.users {
		u := &r.users[ui]
		if u.ID == r.actor.ID || u.IsBot() {
			continue
		}
		var names []string
		for _, c := range r.newByUser[u.ID] {
			if !r.created[c.ID] {
				names = append(names, c.Name)
			}
		}
		switch len(names) {
		case 0:
		case 1:
			bot.direct(u.ID, mention(&r.actor, false)+" subscribed you to the channel "+channelLink(names[0])+".")
		default:
			var b strings.Builder
			b.WriteString(mention(&r.actor, false) + " subscribed you to the following channels:\n")
			for _, n := range sortedNames(names) {
				b.WriteString("\n* " + channelLink(n))
			}
			bot.direct(u.ID, b.String())
		}
	}
}

// subscribeEvents emits the stream creation, subscription add and
// peer_add events of a subscribe request.
func (s *Service) subscribeEvents(tx storage.Tx, emit func(Event), realm Realm, g *groups, created, targets []*storage.Channel,
	before map[int64][]int64, added map[int64][]int64, newSubs []storage.Subscription) error {
	all, err := tx.Users(realm.ID, nil)
	if err != nil {
		return err
	}
	after := make(map[int64][]int64, len(targets))
	for _, c := range targets {
		ids := append(slices.Clone(before[c.ID]), added[c.ID]...)
		slices.Sort(ids)
		after[c.ID] = ids
	}
	// Who can see a channel: everyone but guests for public channels,
	// subscribers and administrators for private ones.
	// exclude is sorted.
	viewers := func(c *storage.Channel, exclude []int64) []int64 {
		var ids []int64
		for i := range all {
			u := &all[i]
			if _, excluded := slices.BinarySearch(exclude, u.ID); !u.IsActive || excluded {
				continue
			}
			_, sub := slices.BinarySearch(after[c.ID], u.ID)
			if (channelAccess{user: u, g: g, subscribed: sub}).metadata(c) {
				ids = append(ids, u.ID)
			}
		}
		return ids
	}
	for _, c := range created {
		if ids := viewers(c, nil); len(ids) > 0 {
			emit(Event{RealmID: realm.ID, UserIDs: ids, Payload: map[string]any{
				"type": "stream", "op": "create", "streams": []ChannelView{viewChannel(c, len(after[c.ID]))}}})
		}
	}
	// One subscription/add event per user with all their new
	// subscriptions. newSubs holds each user's rows together; the channel
	// objects and subscriber lists are built once per channel.
	views := make(map[int64]*SubscriptionView, len(targets))
	for _, c := range targets {
		v := viewSubscription(c, &storage.Subscription{}, after[c.ID], true)
		views[c.ID] = &v
	}
	subViews := make([]SubscriptionView, len(newSubs))
	for i := range newSubs {
		subViews[i] = *views[newSubs[i].ChannelID]
		subViews[i].setSettings(&newSubs[i])
	}
	for start := 0; start < len(newSubs); {
		end := start + 1
		for end < len(newSubs) && newSubs[end].UserID == newSubs[start].UserID {
			end++
		}
		emit(Event{RealmID: realm.ID, UserIDs: []int64{newSubs[start].UserID}, Payload: map[string]any{
			"type": "subscription", "op": "add", "subscriptions": subViews[start:end:end]}})
		start = end
	}
	for _, c := range targets {
		if len(added[c.ID]) == 0 {
			continue
		}
		newcomers := slices.Sorted(slices.Values(added[c.ID]))
		if ids := viewers(c, newcomers); len(ids) > 0 {
			emit(Event{RealmID: realm.ID, UserIDs: ids, Payload: map[string]any{
				"type": "subscription", "op": "peer_add", "stream_ids": []int64{c.ID},
				"user_ids": newcomers}})
		}
	}
	return nil
}
