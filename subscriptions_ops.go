package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// manySubscriptions is the number of subscriptions beyond which
// Subscriptions reads every channel of the realm in one query instead of
// each subscribed channel by itself: 1 000 single-row queries cost about
// 20 ms on SQLite, a listing of 1 000 channels a few.
const manySubscriptions = 50

// Subscriptions returns the actor's subscriptions sorted by channel name,
// with subscriber lists when withSubscribers. Errors: those of the actor
// check.
func (s *Service) Subscriptions(ctx context.Context, actor Actor, withSubscribers bool) ([]SubscriptionView, error) {
	var out []SubscriptionView
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		out, err = cc.subscriptionViews(tx, withSubscribers, nil)
		return err
	})
	return out, err
}

// subscriptionViews are the actor's subscriptions sorted by channel name,
// with subscriber lists when withSubscribers. realmChannels, when not nil,
// are the channels of the actor's realm, already read.
func (cc *channelContext) subscriptionViews(tx storage.Tx, withSubscribers bool, realmChannels []storage.Channel) ([]SubscriptionView, error) {
	ids := make([]int64, 0, len(cc.subs))
	for id := range cc.subs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	all, err := tx.ChannelSubscriptions(ids)
	if err != nil {
		return nil, err
	}
	subscribers := subscriberIDs(all)
	// Many subscriptions are read with the realm's channels in one query
	// rather than one query each.
	if realmChannels == nil && len(ids) > manySubscriptions {
		if realmChannels, err = tx.Channels(cc.realm.ID); err != nil {
			return nil, err
		}
	}
	byID := make(map[int64]*storage.Channel, len(realmChannels))
	for i := range realmChannels {
		byID[realmChannels[i].ID] = &realmChannels[i]
	}
	out := make([]SubscriptionView, 0, len(ids))
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			one, err := tx.Channel(id)
			if err != nil {
				return nil, err
			}
			c = &one
		}
		sub := cc.subs[id]
		out = append(out, viewSubscription(c, &sub, subscribers[id], withSubscribers))
	}
	slices.SortFunc(out, func(a, b SubscriptionView) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.StreamID, b.StreamID))
	})
	return out, nil
}

// UnsubscribeResult is the answer of Unsubscribe: channel names.
type UnsubscribeResult struct {
	Removed    []string `json:"removed"`
	NotRemoved []string `json:"not_removed"`
}

// Unsubscribe removes the principals (default: the actor) from the named
// channels. Removing others needs the right to remove subscribers
// (administrators always have it). Errors: "Channel(s) (names) do not
// exist" for unknown or invisible channels, ErrInsufficientPermission,
// ErrNoSuchUser, ErrUserDeactivated.
//
// Once the subscriptions are gone, each removed user's unread messages of
// the channel are marked read, as the reference does, with
// update_message_flags events to them.
func (s *Service) Unsubscribe(ctx context.Context, actor Actor, names []string, principals *Principals) (UnsubscribeResult, error) {
	var (
		out       UnsubscribeResult
		realmID   int64
		removedBy map[int64][]int64
	)
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		out = UnsubscribeResult{Removed: []string{}, NotRemoved: []string{}}
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		keys := make([]string, len(names))
		for i, n := range names {
			keys[i] = storage.ChannelNameKey(strings.TrimSpace(n))
		}
		found, err := storage.ChannelsByName(tx, cc.realm.ID, keys)
		if err != nil {
			return err
		}
		byKey := map[string]*storage.Channel{}
		for i := range found {
			if cc.access(&found[i]).metadata(&found[i]) {
				byKey[storage.ChannelNameKey(found[i].Name)] = &found[i]
			}
		}
		var missing []string
		var channels []*storage.Channel
		for i, k := range keys {
			c := byKey[k]
			if c == nil {
				missing = append(missing, strings.TrimSpace(names[i]))
			} else if !slices.Contains(channels, c) {
				channels = append(channels, c)
			}
		}
		if len(missing) > 0 {
			return errorf("Channel(s) (%s) do not exist", strings.Join(missing, ", "))
		}
		users := []storage.UserRecord{cc.actor}
		if principals != nil && !principals.empty() {
			self := len(principals.IDs) == 1 && principals.IDs[0] == cc.actor.ID
			if !self {
				for _, c := range channels {
					if !cc.access(c).removeSubscribers(c) {
						return ErrInsufficientPermission
					}
				}
			}
			if users, err = resolvePrincipals(tx, cc.realm.ID, &cc.actor, principals); err != nil {
				return err
			}
		}
		realmID, removedBy = cc.realm.ID, map[int64][]int64{}
		removedFrom := map[int64][]map[string]any{}
		var order []int64
		for _, c := range channels {
			for _, u := range users {
				err := tx.DeleteSubscription(u.ID, c.ID)
				if errors.Is(err, storage.ErrNotFound) {
					out.NotRemoved = appendOnce(out.NotRemoved, c.Name)
					continue
				}
				if err != nil {
					return err
				}
				out.Removed = appendOnce(out.Removed, c.Name)
				removedBy[c.ID] = append(removedBy[c.ID], u.ID)
				if removedFrom[u.ID] == nil {
					order = append(order, u.ID)
				}
				removedFrom[u.ID] = append(removedFrom[u.ID], map[string]any{"name": c.Name, "stream_id": c.ID})
			}
		}
		for _, id := range order {
			emit(Event{RealmID: cc.realm.ID, UserIDs: []int64{id}, Payload: map[string]any{
				"type": "subscription", "op": "remove", "subscriptions": removedFrom[id]}})
		}
		if len(removedBy) == 0 {
			return nil
		}
		all, err := tx.Users(cc.realm.ID, nil)
		if err != nil {
			return err
		}
		for _, c := range channels {
			gone := slices.Sorted(slices.Values(removedBy[c.ID]))
			if len(gone) == 0 {
				continue
			}
			rest, err := tx.ChannelSubscriptions([]int64{c.ID})
			if err != nil {
				return err
			}
			left := subscriberIDs(rest)[c.ID]
			var to []int64
			for i := range all {
				u := &all[i]
				if _, removed := slices.BinarySearch(gone, u.ID); !u.IsActive || removed {
					continue
				}
				_, sub := slices.BinarySearch(left, u.ID)
				if (channelAccess{user: u, g: cc.g, subscribed: sub}).metadata(c) {
					to = append(to, u.ID)
				}
			}
			if len(to) > 0 {
				emit(Event{RealmID: cc.realm.ID, UserIDs: to, Payload: map[string]any{
					"type": "subscription", "op": "peer_remove", "stream_ids": []int64{c.ID},
					"user_ids": gone}})
			}
		}
		return nil
	})
	if err != nil {
		return UnsubscribeResult{Removed: []string{}, NotRemoved: []string{}}, err
	}
	for _, id := range slices.Sorted(maps.Keys(removedBy)) {
		s.markChannelReadFor(ctx, realmID, id, removedBy[id], true)
	}
	return out, nil
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Subscription property names.
const (
	PropColor                  = "color"
	PropIsMuted                = "is_muted"
	PropInHomeView             = "in_home_view"
	PropPinToTop               = "pin_to_top"
	PropDesktopNotifications   = "desktop_notifications"
	PropAudibleNotifications   = "audible_notifications"
	PropPushNotifications      = "push_notifications"
	PropEmailNotifications     = "email_notifications"
	PropWildcardMentionsNotify = "wildcard_mentions_notify"
)

// booleanProperty reports whether the property takes a boolean.
func booleanProperty(p string) bool {
	switch p {
	case PropIsMuted, PropInHomeView, PropPinToTop, PropDesktopNotifications, PropAudibleNotifications,
		PropPushNotifications, PropEmailNotifications, PropWildcardMentionsNotify:
		return true
	}
	return false
}

// PropertyValue is a subscription property value: a boolean or, for the
// colour, a string. Its JSON form is the JSON boolean or string.
type PropertyValue struct {
	Bool   *bool
	String *string
}

// BoolValue and StringValue build property values.
func BoolValue(b bool) PropertyValue     { return PropertyValue{Bool: &b} }
func StringValue(s string) PropertyValue { return PropertyValue{String: &s} }

// MarshalJSON writes the boolean or the string (null when unset).
func (v PropertyValue) MarshalJSON() ([]byte, error) {
	switch {
	case v.Bool != nil:
		return json.Marshal(*v.Bool)
	case v.String != nil:
		return json.Marshal(*v.String)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a boolean or a string; anything else is kept as
// neither, which the property's validation rejects.
func (v *PropertyValue) UnmarshalJSON(data []byte) error {
	*v = PropertyValue{}
	var b bool
	if json.Unmarshal(data, &b) == nil {
		v.Bool = &b
		return nil
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		v.String = &s
	}
	return nil
}

// PropertyChange sets one property of the actor's subscription to a
// channel.
type PropertyChange struct {
	StreamID int64         `json:"stream_id"`
	Property string        `json:"property"`
	Value    PropertyValue `json:"value"`
}

// check validates the shape of the change; where names the element in
// error texts (such as "subscription_data[0]"), or is empty for a single
// change.
func (c *PropertyChange) check(where string) error {
	switch {
	case c.Property == PropColor:
		if c.Value.String == nil || !validColor(*c.Value.String) {
			if where == "" {
				return errorf("color is not a valid hex color code")
			}
			return errorf("Invalid %s: Value error, color is not a valid hex color code", where)
		}
	case booleanProperty(c.Property):
		if c.Value.Bool == nil {
			return errorf("%s is not a boolean", c.Property)
		}
	default:
		return errorf("Unknown subscription property: %s", c.Property)
	}
	return nil
}

// DecodeSubscriptionData decodes the subscription_data parameter of the
// bulk property update, with the reference server's texts for missing
// keys, unknown properties and bad values (all checked before anything
// changes).
func DecodeSubscriptionData(data []byte) ([]PropertyChange, error) {
	raw, err := listOfDicts("subscription_data", data)
	if err != nil {
		return nil, err
	}
	out := make([]PropertyChange, len(raw))
	for i, obj := range raw {
		where := "subscription_data[" + strconv.Itoa(i) + "]"
		for _, key := range []string{"stream_id", "property", "value"} {
			if _, ok := obj[key]; !ok {
				return nil, errorf("%s[\"%s\"] field is missing: Field required", where, key)
			}
		}
		if err := json.Unmarshal(obj["stream_id"], &out[i].StreamID); err != nil {
			return nil, errorf("%s[\"stream_id\"] is not an integer", where)
		}
		if err := json.Unmarshal(obj["property"], &out[i].Property); err != nil {
			return nil, errorf("%s[\"property\"] is not a string", where)
		}
		if err := out[i].Value.UnmarshalJSON(obj["value"]); err != nil {
			return nil, err
		}
	}
	for i := range out {
		if err := out[i].check("subscription_data[" + strconv.Itoa(i) + "]"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UpdateSubscriptionProperties applies the changes to the actor's
// subscriptions, in order and in one transaction. Shapes are checked first
// (CheckPropertyChange); then each channel must be visible
// (ErrInvalidChannelID) and subscribed ("Not subscribed to channel ID N").
// Each change emits a subscription update event; is_muted and in_home_view
// emit two, in_home_view first.
func (s *Service) UpdateSubscriptionProperties(ctx context.Context, actor Actor, changes []PropertyChange) error {
	for i := range changes {
		if err := changes[i].check("subscription_data[" + strconv.Itoa(i) + "]"); err != nil {
			return err
		}
	}
	return s.applyPropertyChanges(ctx, actor, changes)
}

// UpdateSubscriptionProperty sets one property of the actor's subscription
// to the channel. Errors as UpdateSubscriptionProperties, except that a bad
// colour is "color is not a valid hex color code".
func (s *Service) UpdateSubscriptionProperty(ctx context.Context, actor Actor, change PropertyChange) error {
	if err := change.check(""); err != nil {
		return err
	}
	return s.applyPropertyChanges(ctx, actor, []PropertyChange{change})
}

func (s *Service) applyPropertyChanges(ctx context.Context, actor Actor, changes []PropertyChange) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		cc, err := s.channelContext(tx, actor)
		if err != nil {
			return err
		}
		for _, ch := range changes {
			c, err := cc.channel(tx, ch.StreamID, false)
			if err != nil {
				return err
			}
			sub, ok := cc.subs[c.ID]
			if !ok {
				return errorf("Not subscribed to channel ID %d", c.ID)
			}
			b := ch.Value.Bool
			switch ch.Property {
			case PropColor:
				sub.Color = *ch.Value.String
			case PropIsMuted:
				sub.IsMuted = *b
			case PropInHomeView:
				sub.IsMuted = !*b
			case PropPinToTop:
				sub.PinToTop = *b
			case PropDesktopNotifications:
				sub.DesktopNotifications = ptrTo(*b)
			case PropAudibleNotifications:
				sub.AudibleNotifications = ptrTo(*b)
			case PropPushNotifications:
				sub.PushNotifications = ptrTo(*b)
			case PropEmailNotifications:
				sub.EmailNotifications = ptrTo(*b)
			case PropWildcardMentionsNotify:
				sub.WildcardMentionsNotify = ptrTo(*b)
			}
			if err := tx.UpdateSubscription(sub); err != nil {
				return err
			}
			cc.subs[c.ID] = sub
			event := func(prop string, value any) {
				emit(Event{RealmID: cc.realm.ID, UserIDs: []int64{cc.actor.ID}, Payload: map[string]any{
					"type": "subscription", "op": "update", "property": prop, "value": value, "stream_id": c.ID}})
			}
			switch ch.Property {
			case PropIsMuted, PropInHomeView:
				event(PropInHomeView, !sub.IsMuted)
				event(PropIsMuted, sub.IsMuted)
			case PropColor:
				event(PropColor, sub.Color)
			default:
				event(ch.Property, *b)
			}
		}
		return nil
	})
}
