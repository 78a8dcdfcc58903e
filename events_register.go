package chat

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/teamchat/chat/storage"
)

// ClientCapabilities are the client_capabilities a client declares when it
// registers.
type ClientCapabilities struct {
	NotificationSettingsNull   bool `json:"notification_settings_null"`
	BulkMessageDeletion        bool `json:"bulk_message_deletion"`
	UserAvatarURLFieldOptional bool `json:"user_avatar_url_field_optional"`
	StreamTypingNotifications  bool `json:"stream_typing_notifications"`
	UserSettingsObject         bool `json:"user_settings_object"`
	LinkifierURLTemplate       bool `json:"linkifier_url_template"`
	UserListIncomplete         bool `json:"user_list_incomplete"`
	IncludeDeactivatedGroups   bool `json:"include_deactivated_groups"`
	ArchivedChannels           bool `json:"archived_channels"`
	EmptyTopicName             bool `json:"empty_topic_name"`
	SimplifiedPresenceEvents   bool `json:"simplified_presence_events"`
}

// NarrowTerm is one [operator, operand] pair of an event queue's narrow.
type NarrowTerm struct {
	Operator string
	Operand  string
}

// RegisterRequest holds the options of Register.
type RegisterRequest struct {
	// EventTypes are the event types the queue receives; nil means all.
	EventTypes []string
	// FetchEventTypes selects the blocks of initial state; nil means
	// EventTypes, and both nil means every block.
	FetchEventTypes    []string
	ClientCapabilities ClientCapabilities
	// ClientGravatar lets avatar URLs be null where the client computes
	// them (the HTTP default is true).
	ClientGravatar bool
	// ApplyMarkdown gives message events HTML content rather than the
	// Markdown source.
	ApplyMarkdown bool
	// Narrow restricts the message events of the queue.
	Narrow []NarrowTerm
	// SlimPresence asks for presences by user ID, each with its
	// active_timestamp and idle_timestamp, instead of by email in the
	// legacy form.
	SlimPresence bool
	// PresenceHistoryLimitDays bounds how long ago a user may have been
	// connected and still be listed; nil means 14 days.
	PresenceHistoryLimitDays *int
	// QueueLifespan is how long the queue outlives its last request; zero
	// means the hub's default, and more than MaxQueueLifespan is capped
	// (QueueLifespanSeconds converts the HTTP parameter).
	QueueLifespan time.Duration

	// users is the organization's user list as this register reads it.
	users *sharedUsers
}

// sharedUsers is the organization's user list for the blocks of one
// register: the first block that needs it reads it, in its own
// transaction, and the others, read side by side, wait for that read
// instead of each reading every user (four reads of 10 000 users on
// PostgreSQL, which has no cache of them). The blocks are separate
// transactions already, so sharing one of their reads changes nothing of
// what the answer may be.
type sharedUsers struct {
	once  sync.Once
	users []storage.UserRecord
	err   error
}

// realmUsers returns a copy of the organization's users, read once per
// register (every time outside one).
func (req *RegisterRequest) realmUsers(tx storage.Tx, realmID int64) ([]storage.UserRecord, error) {
	if req == nil || req.users == nil {
		return tx.Users(realmID, nil)
	}
	u := req.users
	u.once.Do(func() { u.users, u.err = tx.Users(realmID, nil) })
	if u.err != nil {
		return nil, u.err
	}
	return slices.Clone(u.users), nil
}

// RegisterState is the answer of Register: queue_id, last_event_id, the
// version keys, and the initial-state blocks asked for, keyed by their wire
// names.
type RegisterState map[string]any

// stateBlock adds one fetch type's keys to a register answer. Each block
// reads in transactions of its own, after the queue exists, and may run
// at the same time as the others (readBlocks): it writes only the state
// it is given and changes nothing else.
type stateBlock func(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error

// stateBlocks are the initial-state blocks by fetch type.
// Unknown fetch types are ignored, as by the reference server.
var stateBlocks = map[string]stateBlock{
	"realm":                        realmState,
	"realm_user":                   realmUserState,
	"subscription":                 subscriptionState,
	"stream":                       streamState,
	"custom_profile_fields":        profileFieldState,
	"user_status":                  userStatusState,
	"realm_linkifiers":             linkifierState,
	"realm_filters":                legacyFilterState,
	"realm_domains":                realmDomainState,
	"realm_user_groups":            userGroupState,
	"realm_user_settings_defaults": userSettingsDefaultsState,
	"channel_folders":              channelFolderState,
	"user_topic":                   userTopicState,
	"muted_topics":                 mutedTopicState,
	"default_streams":              defaultStreamState,
	"video_calls":                  videoCallState,
	"message":                      messageState,
	"update_message_flags":         unreadState,
	"starred_messages":             starredState,
	"user_settings":                userSettingsState,
	"realm_emoji":                  realmEmojiState,
	"presence":                     presenceRegisterState,
	"alert_words":                  alertWordsState,
	"realm_bot":                    realmBotState,
	"muted_users":                  mutedUsersState,
}

// Register creates an event queue for the actor and returns it with the
// initial state the request asks for. The queue exists before the state is
// read, so no event is lost between the two; an event that the state
// already reflects may still arrive once. Any active user may call it.
//
// Errors: BAD_REQUEST "Operator {op} not supported." and "Operand {x} not
// supported." for a narrow the queue cannot apply, and those of Users.
func (s *Service) Register(ctx context.Context, actor Actor, req RegisterRequest) (RegisterState, error) {
	if err := checkQueueNarrow(req.Narrow); err != nil {
		return nil, err
	}
	var realmID int64
	if err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		realmID = realm.ID
		return err
	}); err != nil {
		return nil, err
	}
	queueID, err := s.hub.NewQueue(QueueOptions{
		UserID: actor.UserID(), RealmID: realmID, EventTypes: req.EventTypes,
		StreamTypingNotifications: req.ClientCapabilities.StreamTypingNotifications,
		Lifespan:                  min(max(req.QueueLifespan, 0), MaxQueueLifespan),
		MessageFormat: MessageFormat{ApplyMarkdown: req.ApplyMarkdown, ClientGravatar: req.ClientGravatar,
			AllowEmptyTopicName: req.ClientCapabilities.EmptyTopicName},
		EmptyTopicName:      req.ClientCapabilities.EmptyTopicName,
		BulkMessageDeletion: req.ClientCapabilities.BulkMessageDeletion,
		Narrow:              req.Narrow,
	})
	if err != nil {
		return nil, err
	}
	state := RegisterState{"queue_id": queueID, "last_event_id": -1}
	for k, val := range s.versionKeys() {
		state[k] = val
	}
	fetch := req.FetchEventTypes
	if fetch == nil {
		fetch = req.EventTypes
	}
	if fetch == nil {
		for name := range stateBlocks {
			fetch = append(fetch, name)
		}
	}
	var blocks []string
	for _, name := range fetch {
		if name == "muted_topics" && slices.Contains(fetch, "user_topic") {
			continue // user_topic supersedes it
		}
		if _, ok := stateBlocks[name]; ok && !slices.Contains(blocks, name) {
			blocks = append(blocks, name)
		}
	}
	req.users = &sharedUsers{}
	parts, err := s.readBlocks(ctx, actor, &req, blocks)
	if err != nil {
		s.hub.DeleteQueue(actor.UserID(), queueID)
		return nil, err
	}
	// In the order asked, as if the blocks had been read one after the
	// other.
	for _, part := range parts {
		maps.Copy(state, part)
	}
	return state, nil
}

// registerReaders is the number of state blocks Register reads at once:
// the blocks are independent reads, each in its own transaction, and the
// unread state of a large account alone takes as long as all the others.
// It is no more than SQLite's pool of readers.
const registerReaders = 4

// heavyBlocks are the blocks that take longest with many users, channels
// and unread messages, in that order; readBlocks starts them first, so
// that the others are read meanwhile.
var heavyBlocks = []string{"update_message_flags", "subscription", "stream", "realm_user"}

// readBlocks reads the named state blocks, at most registerReaders at
// once, and returns each one's keys in the order of names; the error is
// that of the first block in that order which failed.
func (s *Service) readBlocks(ctx context.Context, actor Actor, req *RegisterRequest, names []string) ([]RegisterState, error) {
	parts := make([]RegisterState, len(names))
	errs := make([]error, len(names))
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	weight := func(name string) int {
		if i := slices.Index(heavyBlocks, name); i >= 0 {
			return i
		}
		return len(heavyBlocks)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weight(names[a]), weight(names[b])) })
	next := make(chan int, len(order))
	for _, i := range order {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(registerReaders, len(names)) {
		wg.Go(func() {
			for i := range next {
				parts[i] = RegisterState{}
				errs[i] = stateBlocks[names[i]](s, ctx, actor, req, parts[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// checkQueueNarrow validates an event queue's narrow.
func checkQueueNarrow(narrow []NarrowTerm) error {
	for _, t := range narrow {
		switch t.Operator {
		case "channel", "stream", "topic", "sender":
		case "is":
			if t.Operand == "followed" {
				return errorf("Operand followed not supported.")
			}
		default:
			return errorf("Operator %s not supported.", t.Operator)
		}
	}
	return nil
}

// versionKeys are the version fields of every register answer, under the
// spec's names and the reference server's.
func (s *Service) versionKeys() map[string]any {
	return map[string]any{
		"service_feature_level": FeatureLevel, "zulip_feature_level": FeatureLevel,
		"service_version": s.cfg.ServiceVersion, "zulip_version": s.cfg.ServiceVersion,
		"service_merge_base": s.cfg.ServiceVersion, "zulip_merge_base": s.cfg.ServiceVersion,
	}
}

// Protocol constants of the register answer. The
// length limits are with the operations that enforce them.
const (
	MaxMessageLength                 = 10000
	typingStartedExpiryMilliseconds  = 45000
	typingStoppedWaitMilliseconds    = 12000
	typingStartedWaitMilliseconds    = 30000
	eventQueueLongpollTimeoutSeconds = 90
)

// ReportType is one reason for reporting a message.
type ReportType struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// ReportMessageTypes are the reasons a message can be reported for, in the
// reference server's order.
var ReportMessageTypes = []ReportType{
	{"spam", "Spam"},
	{"harassment", "Harassment"},
	{"inappropriate", "Inappropriate content"},
	{"norms", "Violates community norms"},
	{"other", "Other reason"},
}

// registerViewer reads the actor and realm for a block.
func (s *Service) registerViewer(ctx context.Context, actor Actor, req *RegisterRequest, fn func(tx storage.Tx, v *viewer) error) error {
	return s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, UserQuery{ClientGravatar: req.ClientGravatar, IncludeCustomProfileFields: true})
		if err != nil {
			return err
		}
		return fn(tx, v)
	})
}

// userTopics reads the actor's topic visibility policies.
func (s *Service) userTopics(ctx context.Context, actor Actor) ([]storage.UserTopic, error) {
	var out []storage.UserTopic
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		if _, _, err := s.actor(tx, actor); err != nil {
			return err
		}
		var err error
		out, err = tx.UserTopics(actor.UserID())
		return err
	})
	return out, err
}

// fetches reports whether a register request fetches the state block
// name: named in its fetch_event_types, else in its event_types, else
// every block is.
func fetches(req *RegisterRequest, name string) bool {
	switch {
	case req.FetchEventTypes != nil:
		return slices.Contains(req.FetchEventTypes, name)
	case req.EventTypes != nil:
		return slices.Contains(req.EventTypes, name)
	}
	return true
}
